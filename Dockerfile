# memoryadmin's production image: web, worker and beat all run from it (see the Procfile).
# Each step is the command the Makefile runs, so the tested path is the path the image takes:
# `make venv`, `make deps`, `make static`; bin/check_runtime.py takes the same steps in CI.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PATH=/app/.venv/bin:$PATH

RUN useradd --create-home --uid 10001 --user-group memoryadmin
WORKDIR /app

# make venv / make deps. Only requirements.txt first, so a change of code reuses this layer.
COPY requirements.txt ./
RUN python -m venv .venv \
    && .venv/bin/pip install -q -r requirements.txt

COPY . .
# make static. Settings need a key to load; the collected files do not depend on it.
RUN DEBUG=false SECRET_KEY=collectstatic-only .venv/bin/python manage.py collectstatic --no-input -v0 \
    && mkdir -p var \
    && chown memoryadmin:memoryadmin var

USER memoryadmin
ENV DEBUG=false \
    HOST=0.0.0.0 \
    PORT=8000 \
    BEAT_SCHEDULE=/app/var/celerybeat-schedule
EXPOSE 8000

HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "bin/healthcheck.py"]

# The Procfile's web line; compose runs `exec worker`, `exec beat` and `exec release` from this image.
CMD ["python", "bin/procfile.py", "exec", "web"]
