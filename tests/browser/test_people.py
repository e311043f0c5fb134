"""People management in headless Chromium: an admin creates an operator and limits them."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec

from memoryadmin.tenancy.roles import rights_of_user
from tests.browser.conftest import PASSWORD, policy_violations, wait

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_creates_an_operator_then_limits_them_to_one_namespace(
    sign_in, live_server, alice, namespace, other_namespace, make_memory
):
    bravo = other_namespace
    make_memory("User likes jazz", ns=namespace)
    driver = sign_in("alice")
    driver.find_element(By.LINK_TEXT, "People").click()
    driver.find_element(By.NAME, "username").send_keys("lena")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "select[name=role] option[value=operator]").click()
    driver.find_element(By.CSS_SELECTOR, "form[action$='/new-person/'] button[type=submit]").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "h1"), "lena"))
    assert "sees every namespace" in driver.find_element(By.ID, "account").text

    # The limit is saved in place (htmx), without leaving the page.
    driver.find_element(By.CSS_SELECTOR, "input[name=namespaces][value=bravo]").click()
    driver.find_element(By.CSS_SELECTOR, "form[action$='/namespaces/'] button[type=submit]").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, "account"), "lena now sees bravo"))
    assert "limited to bravo" in driver.find_element(By.ID, "account").text
    assert rights_of_user(User.objects.get(username="lena")) == ("operator", frozenset({bravo.pk}))
    assert policy_violations(driver) == []

    # Signed in as lena: bravo only, and alpha's memories are a 404.
    driver.delete_all_cookies()
    sign_in("lena")
    driver.get(live_server.url + "/namespaces/")
    table = driver.find_element(By.ID, "main").text
    assert "bravo" in table and "alpha" not in table
    assert "People" not in driver.find_element(By.CSS_SELECTOR, "nav.nav").text
    driver.get(live_server.url + "/memories/?ns=alpha")
    assert "User likes jazz" not in driver.page_source
