"""Take the console screenshots of the README from a running server with demo data.

    python manage.py seed_demo && python manage.py runserver 127.0.0.1:8000
    python docs/screenshots/make.py --base-url http://127.0.0.1:8000

Desktop shots are 1,366 px wide (a common laptop); the `-phone` ones are 390 px, a phone's width.

Needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

HERE = Path(__file__).resolve().parent
WIDTH = 1366
PHONE_WIDTH = 390


def browser(profile: str) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        f"--window-size={WIDTH},900",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))


def shoot(driver: webdriver.Chrome, name: str, max_height: int = 1500, width: int = WIDTH) -> None:
    driver.set_window_size(width, 900)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, min(max(height, 700), max_height))
    driver.save_screenshot(str(HERE / f"{name}.png"))
    print(f"wrote {name}.png")


def phone_shots(driver: webdriver.Chrome, base: str, wait: WebDriverWait) -> None:
    """The main pages at a phone's width, the top of each as a phone shows it."""
    driver.set_window_size(PHONE_WIDTH, 900)
    pages = [
        ("dashboard-phone", "/", "#health .health"),
        ("memories-phone", "/memories/?ns=support-bot", "tr.memory-row"),
        ("review-phone", "/review/?ns=travel-agent", "[data-review-card]"),
        ("sessions-phone", "/sessions/?ns=support-bot", "table.table"),
        ("audit-phone", "/audit/", "table.audit"),
    ]
    for name, path, ready in pages:
        driver.get(base + path)
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ready)))
        shoot(driver, name, max_height=1600, width=PHONE_WIDTH)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--username", default="admin")
    parser.add_argument("--password", default="admin-demo-pass")
    args = parser.parse_args()
    base = args.base_url.rstrip("/")
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        wait = WebDriverWait(driver, 10)
        try:
            driver.get(base + "/login/")
            driver.find_element(By.NAME, "username").send_keys(args.username)
            driver.find_element(By.NAME, "password").send_keys(args.password)
            driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".tiles")))
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#health .health")))
            shoot(driver, "dashboard")

            driver.get(base + "/memories/?ns=support-bot")
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "tr.memory-row")))
            shoot(driver, "memories", max_height=1000)

            # A memory an operator has corrected, so its page shows revisions and their diff.
            driver.get(base + "/audit/?action=memory.update")
            driver.find_element(By.CSS_SELECTOR, "table.audit td a[href^='/memories/']").click()
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#summary")))
            shoot(driver, "memory-detail")

            driver.get(base + "/sessions/?ns=support-bot")
            driver.find_element(By.LINK_TEXT, "tools-support-bot").click()
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "ol.transcript")))
            driver.execute_script("window.scrollTo(0, 0)")
            shoot(driver, "transcript")

            driver.get(base + "/review/?ns=travel-agent")
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "[data-review-card]")))
            driver.find_element(By.TAG_NAME, "body").send_keys("j")
            shoot(driver, "review", max_height=1100)

            driver.get(base + "/audit/")
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "table.audit")))
            shoot(driver, "audit", max_height=1100)

            phone_shots(driver, base, wait)
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
