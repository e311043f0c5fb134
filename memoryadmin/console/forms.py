"""Forms parse and check what an operator typed; the services decide what is allowed."""

from __future__ import annotations

import json
import uuid
from datetime import date, datetime, timedelta
from typing import Any

from django import forms
from django.http import QueryDict

from memoryadmin.console.queries import day_start
from memoryadmin.core.app_ids import APP_ID_RE
from memoryadmin.core.errors import ServiceError
from memoryadmin.extraction.enums import RunStatus
from memoryadmin.memories.enums import MemoryStatus, MemoryType, TombstoneReason
from memoryadmin.tenancy.enums import SCOPES, ExtractionStrategy
from memoryadmin.webhooks.events import EVENT_TYPES

ANY = [("", "any")]


def add_service_error(form: forms.Form, exc: ServiceError, default_field: str | None = None) -> None:
    """Show a service's refusal on the form: beside the field it names, if the form has that field."""
    field = exc.details.get("field")
    form.add_error(field if field in form.fields else default_field, exc.message)


def split_labels(raw: str) -> list[str]:
    return [part.strip() for part in raw.split(",") if part.strip()]


class NamespaceSettingsForm(forms.Form):
    name = forms.CharField(max_length=200)
    review_required = forms.BooleanField(
        required=False, help_text="Extracted memories wait in the review queue until an operator approves them."
    )
    extraction_strategy = forms.ChoiceField(choices=ExtractionStrategy.choices)
    extraction_config = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 5, "spellcheck": "false", "class": "mono"}),
        help_text='JSON object, e.g. {"prompt": "…{messages}…"} for the custom strategy.',
    )
    working_memory_ttl_seconds = forms.IntegerField(
        min_value=1, max_value=365 * 86400, label="Working-memory TTL (seconds)"
    )

    def clean_extraction_config(self) -> dict[str, Any]:
        raw = self.cleaned_data["extraction_config"].strip()
        if not raw:
            return {}
        try:
            value = json.loads(raw)
        except ValueError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc}") from None
        if not isinstance(value, dict):
            raise forms.ValidationError("must be a JSON object")
        return value


class NamespaceCreateForm(forms.Form):
    slug = forms.CharField(
        max_length=63, help_text="Lowercase letters, digits and hyphens; the apps' keys belong to it for good."
    )
    name = forms.CharField(max_length=200, required=False, help_text="Shown in the console; the slug when empty.")
    review_required = forms.BooleanField(
        required=False, help_text="Extracted memories wait in the review queue until an operator approves them."
    )


class ApiKeyForm(forms.Form):
    name = forms.CharField(max_length=200)
    scopes = forms.MultipleChoiceField(
        choices=[(s, s) for s in SCOPES], widget=forms.CheckboxSelectMultiple, initial=["read", "write"]
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Shown beside the namespace's settings, which have a `name` too: its fields' ids differ.
        kwargs.setdefault("auto_id", "id_key_%s")
        super().__init__(*args, **kwargs)


class ReasonForm(forms.Form):
    reason = forms.CharField(max_length=500, required=False, widget=forms.TextInput(attrs={"placeholder": "reason"}))


def optional_reason(data: QueryDict) -> str:
    """The reason posted with an action that does not need one: empty when none, or none that fits, was given."""
    form = ReasonForm(data)
    return form.cleaned_data["reason"] if form.is_valid() else ""


class RequiredReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=500,
        widget=forms.TextInput(attrs={"placeholder": "reason (required)"}),
        error_messages={"required": "This needs a reason; it is kept in the audit log."},
    )


class MemoryEditForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))
    memory_type = forms.ChoiceField(choices=MemoryType.choices)
    topics = forms.CharField(required=False, help_text="comma-separated")
    entities = forms.CharField(required=False, help_text="comma-separated")
    reason = forms.CharField(max_length=500, required=False)
    # The revision the form was filled from: saving over a newer one is refused, not a lost update.
    revision = forms.IntegerField(widget=forms.HiddenInput, min_value=1)

    def clean_topics(self) -> list[str]:
        return split_labels(self.cleaned_data["topics"])

    def clean_entities(self) -> list[str]:
        return split_labels(self.cleaned_data["entities"])


class UUIDListField(forms.Field):
    widget = forms.MultipleHiddenInput

    def __init__(self, *, max_items: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_items = max_items

    def to_python(self, value: Any) -> list[uuid.UUID]:
        values = [v for v in (value or []) if v]
        if len(values) > self.max_items:
            raise forms.ValidationError(f"at most {self.max_items} at once")
        try:
            return list(dict.fromkeys(uuid.UUID(str(v)) for v in values))
        except ValueError:
            raise forms.ValidationError("not a memory id") from None


class BulkForm(forms.Form):
    ACTIONS = [("pin", "Pin"), ("unpin", "Unpin"), ("approve", "Approve"), ("reject", "Reject"), ("forget", "Forget")]
    action = forms.ChoiceField(choices=ACTIONS)
    ids = UUIDListField(max_items=1000, error_messages={"required": "select at least one memory"})
    reason = forms.CharField(max_length=500, required=False)


OLDEST = "oldest"


def order_field() -> forms.ChoiceField:
    """A list's order along its keyset key, the way its index reads both ways."""
    return forms.ChoiceField(choices=[("", "newest first"), (OLDEST, "oldest first")], required=False)


def _day_start(value: date | None) -> datetime | None:
    return None if value is None else day_start(value)


class MemoryFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=500, label="Search")
    user = forms.RegexField(regex=APP_ID_RE, required=False, label="User")
    type = forms.ChoiceField(choices=ANY + MemoryType.choices, required=False)
    status = forms.ChoiceField(choices=ANY + MemoryStatus.choices, required=False)
    pinned = forms.ChoiceField(choices=[*ANY, ("yes", "pinned"), ("no", "not pinned")], required=False)
    topic = forms.CharField(required=False, max_length=100)
    created_from = forms.DateField(required=False, label="Created from", widget=forms.DateInput(attrs={"type": "date"}))
    created_to = forms.DateField(required=False, label="to", widget=forms.DateInput(attrs={"type": "date"}))
    order = order_field()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        start, end = data.get("created_from"), data.get("created_to")
        if start and end and start > end:
            raise forms.ValidationError("the start of the created range is after its end")
        return data

    @property
    def created_after(self) -> datetime | None:
        return _day_start(self.cleaned_data.get("created_from"))

    @property
    def created_before(self) -> datetime | None:
        end = self.cleaned_data.get("created_to")
        if end is None or end == date.max:
            return None
        # The end date is inclusive: everything before the next midnight.
        return _day_start(end + timedelta(days=1))


class DayRangeForm(forms.Form):
    """From and to dates, both inclusive, at most MAX_DAYS apart."""

    MAX_DAYS = 366

    start = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))

    # A range is filled in, and its end taken to the next midnight, by days: both stay inside the calendar.
    EARLIEST = date(2, 1, 1)
    LATEST = date(9998, 12, 31)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        start, end = data.get("start"), data.get("end")
        if any(day and not self.EARLIEST <= day <= self.LATEST for day in (start, end)):
            raise forms.ValidationError(f"a date lies between {self.EARLIEST} and {self.LATEST}")
        if start and end and start > end:
            raise forms.ValidationError("the start of the date range is after its end")
        if start and end and (end - start).days >= self.MAX_DAYS:
            raise forms.ValidationError(f"a date range covers at most {self.MAX_DAYS} days")
        return data


class DashboardFilterForm(DayRangeForm):
    DEFAULT_DAYS = 30

    def days(self, today: date) -> tuple[date, date]:
        """The first and last day shown: the range asked for, filled in to DEFAULT_DAYS from what is given."""
        start, end = self.cleaned_data.get("start"), self.cleaned_data.get("end")
        if end is None:
            end = min(start + timedelta(days=self.DEFAULT_DAYS - 1), today) if start else today
        if start is None:
            start = end - timedelta(days=self.DEFAULT_DAYS - 1)
        return start, max(start, end)


class RunFilterForm(DayRangeForm):
    status = forms.ChoiceField(choices=ANY + RunStatus.choices, required=False)
    order = order_field()


class SessionFilterForm(forms.Form):
    user = forms.RegexField(regex=APP_ID_RE, required=False)
    agent = forms.RegexField(regex=APP_ID_RE, required=False)
    order = order_field()


class TombstoneFilterForm(forms.Form):
    user = forms.RegexField(regex=APP_ID_RE, required=False)
    reason = forms.ChoiceField(choices=ANY + TombstoneReason.choices, required=False)
    order = order_field()


class AuditFilterForm(forms.Form):
    actor = forms.CharField(required=False, max_length=200)
    action = forms.ChoiceField(required=False, choices=ANY)
    target = forms.CharField(required=False, max_length=240, help_text="type:id, e.g. memory:3f2c…")

    def __init__(self, *args: Any, actions: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["action"].choices = ANY + [(action, action) for action in actions]


class SubjectLookupForm(forms.Form):
    user = forms.RegexField(regex=APP_ID_RE, label="user_id")


class EraseForm(forms.Form):
    confirm = forms.CharField(max_length=128, label="Type the user_id to confirm")
    reason = forms.CharField(max_length=500, required=False)

    def __init__(self, *args: Any, user_id: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user_id = user_id

    def clean_confirm(self) -> str:
        if self.cleaned_data["confirm"] != self.user_id:
            raise forms.ValidationError("type the user_id exactly to confirm the erasure")
        return self.cleaned_data["confirm"]


class WebhookForm(forms.Form):
    url = forms.CharField(max_length=2000, label="URL", help_text="An http or https address of the receiver.")
    description = forms.CharField(max_length=200, required=False, help_text="What receives it, for people.")
    events = forms.MultipleChoiceField(
        choices=[(event, event) for event in EVENT_TYPES],
        widget=forms.CheckboxSelectMultiple,
        initial=["memory.created", "memory.updated", "memory.forgotten", "erasure.completed"],
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "id_webhook_%s")
        super().__init__(*args, **kwargs)
