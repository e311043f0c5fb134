"""People: the console's accounts, their roles and the namespaces they are limited to (admins only)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from memoryadmin.console.access import actor_of, found_or_404, role_required
from memoryadmin.console.forms import ReasonForm, add_service_error, optional_reason
from memoryadmin.console.listing import page_or_more
from memoryadmin.core.errors import NotFound, ServiceError
from memoryadmin.core.pagination import InvalidCursor
from memoryadmin.governance.privacy_links import (
    operator_deactivate_with_links,
    operator_namespaces_set_with_links,
    operator_role_set_with_links,
)
from memoryadmin.governance.queries import privacy_links_made_by
from memoryadmin.tenancy.queries import (
    Operator,
    account_with_username,
    namespaces_by_slug,
    operator_get,
    operators_page,
)
from memoryadmin.tenancy.services import operator_create, operator_reactivate

PAGE_SIZE = 50
PRIVACY_LINKS_SHOWN = 50
ROLE_CHOICES = [
    ("viewer", "viewer: reads everything"),
    ("operator", "operator: also pins, edits, forgets, reviews and exports"),
    ("admin", "admin: also erases, restores, sets policies, manages keys and people"),
]


def _namespace_field() -> forms.ModelMultipleChoiceField:
    return forms.ModelMultipleChoiceField(
        queryset=namespaces_by_slug(),
        to_field_name="slug",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Limited to these namespaces (none ticked: every namespace)",
    )


class PersonCreateForm(forms.Form):
    username = forms.CharField(max_length=150)
    password = forms.CharField(
        min_length=8,
        widget=forms.PasswordInput(render_value=False),
        help_text="At least 8 characters; tell it to them.",
    )
    role = forms.ChoiceField(choices=ROLE_CHOICES, initial="viewer")
    namespaces = _namespace_field()


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=ROLE_CHOICES)


class NamespacesForm(forms.Form):
    namespaces = _namespace_field()


def _person_or_404(username: str) -> Operator:
    try:
        return operator_get(username)
    except NotFound:
        raise Http404("no such account") from None


def _people_page(request: HttpRequest, form: PersonCreateForm, *, status: int = 200) -> HttpResponse:
    cursor = request.GET.get("cursor") or None
    try:
        page = operators_page(cursor=cursor, limit=PAGE_SIZE)
    except InvalidCursor:
        return render(request, "console/invalid.html", {"message": "That page of people does not exist."}, status=400)
    context: dict[str, Any] = {"people": page.items, "form": form, "first_page": cursor is None}
    if page.next_cursor:
        context["next_url"] = reverse("console:people") + "?" + urlencode({"cursor": page.next_cursor})
    return page_or_more(request, "console/people.html", context, status=status)


@role_required("admin")
def people(request: HttpRequest) -> HttpResponse:
    return _people_page(request, PersonCreateForm())


@require_POST
@role_required("admin")
def person_new(request: HttpRequest) -> HttpResponse:
    form = PersonCreateForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            user = operator_create(
                username=data["username"],
                role=data["role"],
                password=data["password"],
                namespaces=data["namespaces"],
                actor=actor_of(request),
            )
        except ServiceError as exc:
            add_service_error(form, exc, "username")
        else:
            messages.success(request, f"{user.username} can now sign in as {data['role']}.")
            return redirect("console:person", user.username)
    return _people_page(request, form, status=422)


def _person_context(person: Operator, **extra: Any) -> dict[str, Any]:
    return {
        "person": person,
        "made_links": privacy_links_made_by(user=person.user, limit=PRIVACY_LINKS_SHOWN),
        "now": timezone.now(),
        "role_form": RoleForm(initial={"role": person.role}),
        "namespaces_form": NamespacesForm(initial={"namespaces": [ns.slug for ns in person.namespaces]}),
        "reason_form": ReasonForm(),
        **extra,
    }


def _answer(request: HttpRequest, username: str, note: str = "", error: str = "", **forms_: Any) -> HttpResponse:
    """The account section again (htmx), or the page after a redirect (a plain post)."""
    if not request.htmx and not forms_:
        (messages.error if error else messages.success)(request, error or note)
        return redirect("console:person", username)
    person = _person_or_404(username)
    context = _person_context(person, note=note, error=error, **forms_)
    status = 422 if error or forms_ else 200
    template = "console/person.html#account" if request.htmx else "console/person.html"
    return render(request, template, context, status=status)


@role_required("admin")
def person(request: HttpRequest, username: str) -> HttpResponse:
    return render(request, "console/person.html", _person_context(_person_or_404(username)))


def _account_change(change: Callable[[HttpRequest, User], HttpResponse]) -> Callable[..., HttpResponse]:
    """An admin's change to one account, posted: `change` gets the account and answers; a change the
    services refuse is shown beside the account as an error."""

    @require_POST
    @role_required("admin")
    @wraps(change)
    def view(request: HttpRequest, username: str) -> HttpResponse:
        user = found_or_404(account_with_username(username), "account")
        try:
            return change(request, user)
        except ServiceError as exc:
            return _answer(request, username, error=exc.message)

    return view


@_account_change
def person_role(request: HttpRequest, user: User) -> HttpResponse:
    form = RoleForm(request.POST)
    if not form.is_valid():
        return _answer(request, user.username, role_form=form)
    operator_role_set_with_links(user=user, role=form.cleaned_data["role"], actor=actor_of(request))
    return _answer(request, user.username, note=f"{user.username} is now {form.cleaned_data['role']}.")


@_account_change
def person_namespaces(request: HttpRequest, user: User) -> HttpResponse:
    form = NamespacesForm(request.POST)
    if not form.is_valid():
        return _answer(request, user.username, namespaces_form=form)
    chosen = operator_namespaces_set_with_links(
        user=user, namespaces=form.cleaned_data["namespaces"], actor=actor_of(request)
    )
    where = ", ".join(sorted(ns.slug for ns in chosen)) if chosen else "every namespace"
    return _answer(request, user.username, note=f"{user.username} now sees {where}.")


@_account_change
def person_deactivate(request: HttpRequest, user: User) -> HttpResponse:
    operator_deactivate_with_links(user=user, actor=actor_of(request), reason=optional_reason(request.POST))
    return _answer(request, user.username, note=f"{user.username} is deactivated: signed out and unable to sign in.")


@_account_change
def person_reactivate(request: HttpRequest, user: User) -> HttpResponse:
    operator_reactivate(user=user, actor=actor_of(request), reason=optional_reason(request.POST))
    return _answer(request, user.username, note=f"{user.username} can sign in again.")
