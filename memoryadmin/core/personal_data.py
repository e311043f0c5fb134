"""Where a person's data lives, discovered from the models and the apps' declarations, not listed by hand.

- A *subject table* names its person: a `namespace` foreign key and a `user_id` text column.
- A *dependent table* reaches a subject table through a chain of foreign keys (a message through
  its session, evidence through its memory or its message). Those keys cascade in the database,
  so deleting a person's rows of the subject tables deletes every dependent row with them.
- Every other model says where it stands with a `PERSONAL_DATA` class attribute: `"none"` (holds
  nothing about a person), `"ledger"` (keeps only a keyed hash), or the treatment an erasure gives
  it (`"redacted"` for free text an erasure blanks; `"discarded"` for uploads an erasure throws
  away). The app that owns such a model registers the treatment (`register_treatment`) with the
  models it covers; `personal_data_problems()` lists models that say nothing, and models declared
  redacted or discarded that no registered treatment covers.
- Redis keys are declared by the app that owns them (`register_key_family`), per session.

Erasure, the receipt's verification and the export coverage check all read this map, so a new
table of personal data is covered (or fails the check) without a list to update.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

from django.apps import apps
from django.db import models

PROJECT = "memoryadmin."
DECLARATIONS = ("none", "ledger", "redacted", "discarded")
# The declarations that need a registered treatment to be true.
TREATED = ("redacted", "discarded")


@dataclass(frozen=True)
class Path:
    """How rows of a table reach a subject table: the lookup prefix (`session__`) and the subject model."""

    prefix: str
    root: type[models.Model]


@dataclass(frozen=True)
class Holding:
    model: type[models.Model]
    paths: tuple[Path, ...]

    @property
    def is_subject_table(self) -> bool:
        return any(path.prefix == "" for path in self.paths)

    @property
    def label(self) -> str:
        return self.model._meta.label

    @property
    def store(self) -> str:
        """What the receipt calls this table's rows."""
        return getattr(self.model, "ERASURE_STORE", None) or self.model._meta.db_table.split("_", 1)[-1]

    def lookups(self, namespace_id: int, user_id: str) -> list[models.Q]:
        """One filter per path: the rows about this person in this namespace."""
        return [
            models.Q(**{f"{p.prefix}namespace_id": namespace_id, f"{p.prefix}user_id": user_id}) for p in self.paths
        ]


def _project_models() -> list[type[models.Model]]:
    return [m for m in apps.get_models() if m._meta.app_config.name.startswith(PROJECT)]


def _declared(model: type[models.Model]) -> str | None:
    return model.__dict__.get("PERSONAL_DATA")


def _is_subject_table(model: type[models.Model]) -> bool:
    names = {f.name for f in model._meta.get_fields()}
    if "user_id" not in names or "namespace" not in names:
        return False
    return isinstance(model._meta.get_field("user_id"), models.CharField)


@cache
def holdings() -> tuple[Holding, ...]:
    """Every table that holds rows about a person, with each way it reaches the person, in a stable order."""
    candidates = [m for m in _project_models() if _declared(m) is None]
    paths: dict[type[models.Model], set[Path]] = {m: {Path("", m)} for m in candidates if _is_subject_table(m)}
    changed = True
    while changed:
        changed = False
        for model in candidates:
            for fk in model._meta.get_fields():
                if not (fk.many_to_one or fk.one_to_one) or not fk.concrete or fk.related_model not in paths:
                    continue
                for parent_path in list(paths[fk.related_model]):
                    path = Path(f"{fk.name}__{parent_path.prefix}", parent_path.root)
                    if path not in paths.setdefault(model, set()):
                        paths[model].add(path)
                        changed = True
    return tuple(
        Holding(model, tuple(sorted(found, key=lambda p: (len(p.prefix), p.prefix))))
        for model, found in sorted(paths.items(), key=lambda item: item[0]._meta.label)
    )


def subject_tables() -> list[type[models.Model]]:
    return [h.model for h in holdings() if h.is_subject_table]


def personal_data_problems() -> list[str]:
    """Models that hold data without saying how it is treated: each must be found above or declare itself."""
    found = {h.model for h in holdings()}
    problems = []
    for model in _project_models():
        declared = _declared(model)
        if declared is not None and declared not in DECLARATIONS:
            problems.append(f"{model._meta.label}: PERSONAL_DATA must be one of {', '.join(DECLARATIONS)}")
        elif declared is None and model not in found:
            problems.append(
                f"{model._meta.label}: neither names a person (namespace and user_id) nor reaches one through "
                "foreign keys; declare PERSONAL_DATA"
            )
        elif declared in TREATED and not any(
            t.declaration == declared and model._meta.label in t.models for t in treatments()
        ):
            problems.append(
                f"{model._meta.label}: declared {declared!r}, but no treatment is registered for it "
                "(register_treatment in its app's ready())"
            )
    return problems


# --- Redis keys and treatments, registered by the apps that own them -----------------------------


@dataclass(frozen=True)
class SessionRef:
    pk: int
    session_id: str


@dataclass(frozen=True)
class KeyFamily:
    """Redis keys an app keeps per session: how to name them and how to clear them."""

    store: str
    keys: Callable[[int, Sequence[SessionRef]], list[str]]
    clear: Callable[[int, Sequence[SessionRef]], int]


@dataclass(frozen=True)
class Treatment:
    """What an erasure does to the rows of some models that do not name a person but may hold their data.

    `apply(namespace_id=..., user_id=...)` does it in the namespace, in its own transaction, and returns
    how many it treated; the receipt counts them under `store`.
    """

    store: str
    declaration: str
    models: tuple[str, ...]
    apply: Callable[..., int]


@dataclass
class _Registry:
    families: list[KeyFamily] = field(default_factory=list)
    treatments: list[Treatment] = field(default_factory=list)


_registry = _Registry()


def register_key_family(family: KeyFamily) -> None:
    """Called from an app's ready(): a family is registered once, whatever reloads."""
    if all(f.store != family.store for f in _registry.families):
        _registry.families.append(family)


def key_families() -> list[KeyFamily]:
    return sorted(_registry.families, key=lambda f: f.store)


def register_treatment(treatment: Treatment) -> None:
    """Called from an app's ready(): a treatment is registered once, whatever reloads."""
    if treatment.declaration not in TREATED:
        raise ValueError(f"{treatment.store}: a treatment is one of {', '.join(TREATED)}")
    if all(t.store != treatment.store for t in _registry.treatments):
        _registry.treatments.append(treatment)


def treatments() -> list[Treatment]:
    return sorted(_registry.treatments, key=lambda t: t.store)
