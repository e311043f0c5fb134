"""Chat as people type it: names in lower case (`offline/names.py`), facts stated plainly (`plain.py`) and changes
told in shorthand (`shorthand.py`), read from one message; and the updates they make, end to end."""

from __future__ import annotations

import pytest

from memoryadmin.extraction.strategies.offline import read_message
from memoryadmin.extraction.strategies.offline.names import spelt
from tests.extraction.test_offline_news import TODAY, attributes
from tests.extraction.test_updates import measure


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ("My husband and I are moving to Leeds", "Pat and their husband are moving to Leeds"),
        ("My fiancé and I are planning a wedding for next June", "Pat and their fiancé are planning a wedding"),
        ("my wife and i were in paris last week", "Pat and their wife were in Paris"),
    ],
)
def test_a_subject_of_two_is_read_whole(content: str, text: str) -> None:
    """ "My husband and I are…" is one subject: no "Pat ares…". What they do together sets no status, and a husband
    or a wife so named says the speaker is married, as a fact of its own."""
    readings = read_message(content, "Pat", TODAY)
    assert any(text in r.text for r in readings), [r.text for r in readings]
    assert not any(" ares " in r.text for r in readings)
    if "fiancé" not in content:
        statuses = [r.text for r in readings if r.attribute == "relationship_status"]
        assert statuses == ["Pat is married"], statuses


@pytest.mark.parametrize(
    ("typed", "spelt_as"),
    [
        ("finally moved to denver!!", "finally moved to Denver!!"),
        ("i work retail at h&m", "i work retail at H&M"),
        ("i go to ucla, kings college london was too dear", "i go to UCLA, Kings College London was too dear"),
        # A name that is an everyday word only after a word that introduces a name.
        ("i bank with chase", "i bank with Chase"),
        ("chase me if you can", "chase me if you can"),
        ("picked up a used bolt", "picked up a used Bolt"),
        ("a bolt of lightning", "a bolt of lightning"),
        ("the bills are killing me", "the bills are killing me"),
        # Typed otherwise than wholly in lower case, a word is left as it is.
        ("I moved to DENVER", "I moved to DENVER"),
        ("vegan for three years", "vegan for three years"),
    ],
)
def test_names_typed_in_lower_case_are_spelt_as_names(typed: str, spelt_as: str) -> None:
    assert spelt(typed) == spelt_as
    assert len(spelt(typed)) == len(typed)
    assert spelt(spelt(typed)) == spelt(typed)


# Facts stated plainly (plain.py).
STATED = [
    ("our house is in sugar land, bout 30 min from houston", "residence", "Sugar Land"),
    ("i'm in a shared flat in glasgow, 3 flatmates", "residence", "Glasgow"),
    ("i am renting a room in lisbon, near alfama", "residence", "Lisbon"),
    ("i still live with my parents in jersey 🙃", "residence", "Jersey"),
    ("im in leeds atm, been here since uni", "residence", "Leeds"),
    ("We've been in our little bungalow in Harrogate for nearly twenty years now", "residence", "Harrogate"),
    ("i drive for uber full time", "employer", "Uber"),
    ("i work retail at h&m", "employer", "H&M"),
    ("my job is in infosys, bangalore office, as tester", "employer", "infosys"),
    ("i go to ucla", "school", "UCLA"),
    ("im at kings college london", "school", "Kings College London"),
    ("doing my masters at edinburgh", "school", "Edinburgh"),
    ("im a bio major", "course", "bio major"),
    ("i'm on verizon", "mobile_carrier", "Verizon"),
    ("we have comcast", "internet_provider", "Comcast"),
    ("i'm a member at equinox", "gym", "Equinox"),
    ("i bank with chase", "bank", "Chase"),
    ("i have a 2015 f-150", "car", "F-150"),
    ("i smoke like a pack a day", "smoking", "smokes"),
    ("i work from home full time", "work mode", "works from home"),
    ("i work nights at the hospital", "shift", "works nights"),
    ("I'm a widower, have been for six years.", "relationship_status", "widower"),
    ("my hair is long and brown, like down to my waist", "hair colour", "brown"),
    ("I follow a pescatarian diet", "diet", "pescatarian"),
    ("I'm on nights at the hospital", "shift", "nights"),
    ("I'm in the office every day", "work mode", "office"),
    ("doing a part-time MBA at Warwick", "school", "Warwick"),
    ("can you help me budget? rent here in austin is $1800", "residence", "Austin"),
    ("just finished unpacking, manchester flat is finally feeling like home lol", "residence", "Manchester"),
    ("I'm renting a flat above the chippy on the high street in Luton", "residence", "Luton"),
    ("we rent a 2 bed in Clontarf", "residence", "Clontarf"),
    ("My fiancé and I are planning a wedding for next June", "relationship_status", "fiancé"),
    ("Girlfriend's name is Ella, she's a vet", "partner", "Ella"),
    ("I've been seeing a lovely chap called Roger from the bowls club.", "partner", "Roger"),
    ("I'm registered with the Church Street surgery.", "doctor", "Church Street surgery"),
    ("drive a honda accord 2008, she's old but reliable", "car", "Honda"),
]
# Changes told in shorthand (shorthand.py).
SHORTHAND = [
    ("ok so the lease ended and i'm officially a seattle person now", "residence", "Pat lives in Seattle"),
    (
        "update: no longer in SD 😔 moved back home to fresno to save money",
        "residence",
        "Pat moved back home to Fresno",
    ),
    ("gave up van life 🚐 rented an actual apartment in boise", "residence", "Pat lives in Boise"),
    ("first night in nashville and the new apartment smells like paint", "residence", "Pat lives in Nashville"),
    ("we bought a house!!! in vancouver WA so technically a new state", "residence", "Pat lives in Vancouver"),
    ("Finally got the transfer through, we're in a three bed in Walthamstow now.", "residence", "Walthamstow"),
    ("I've moved in with my daughter and her husband in Horsham", "residence", "Pat lives in Horsham"),
    ("stopped doing uber, fedex hired me as a courier", "employer", "Pat works at FedEx"),
    ("guess who's a zara employee now 😎", "employer", "Pat works at Zara"),
    ("first shift at mercy general done today", "employer", "Pat works at Mercy General"),
    ("joined wipro from this month, package is better", "employer", "Wipro"),
    ("Anyway I'm at Wealthsimple now, the Shopify layoffs got me", "employer", "Pat works at Wealthsimple"),
    ("Long story but I'm now with Seplat, the offer was too good.", "employer", "Pat works at Seplat"),
    ("switched to mint mobile, saving $40 a month", "mobile_carrier", "Pat's mobile carrier is Mint Mobile"),
    ("cancelled xfinity!! we got fiber from at&t", "internet_provider", "Pat's internet provider is AT&T"),
    ("moved everything to ally, chase fees were literal robbery", "bank", "Pat banks with Ally"),
    ("Switched to First Direct for the £175", "bank", "Pat banks with First Direct"),
    ("equinox got way too expensive so i do the ymca now", "gym", "Pat goes to YMCA"),
    ("dr patel retired 😢 i've been moved to dr kim", "doctor", "Pat's doctor is Dr Kim"),
    ("pixel 6a finally gave out, got a samsung a54 on sale", "phone", "Pat's phone is the samsung a54"),
    ("finally went hybrid, picked up a used prius and sold the truck", "car", "Pat drives a Prius"),
    ("not vegan anymore, it wasnt working for my health", "diet", "Pat is no longer vegan"),
    ("yeah i'm eating fish again now, pescatarian i guess? don't tell my sister", "diet", "Pat eats fish again"),
    ("i don't really consider myself catholic anymore tbh", "religion", "Pat is no longer catholic"),
    ("dropped out of kcl, it wasn't for me", "school", "Pat dropped out of KCL"),
    ("submitted the dissertation, graduated!!! no more uni ever 🎓", "school", "Pat graduated"),
    ("I've left college, got an apprenticeship with a firm in Gateshead instead", "school", "Pat left college"),
    ("Finished my OU degree! Graduation ceremony's in May.", "course", "Pat finished their degree"),
    ("First week as headteacher. The paperwork is unreal", "occupation", "Pat is a headteacher"),
    ("Had to give up the trumpet, my teeth won't allow it any more.", "instrument", "no longer plays the trumpet"),
    ("3 weeks no cigs!!! the patch is helping", "smoking", "Pat quit smoking"),
    ("i'm sober now, 30 days today 🎉", "drinking", "Pat is sober"),
    ("company forced us back to the office 5 days a week 🙃", "work mode", "Pat works in the office"),
    ("they made my role fully remote!!!", "work mode", "Pat works remotely"),
    ("moved to day shift!!! i can finally sleep", "shift", "Pat works day shifts"),
    ("HE PROPOSED 💍 i said yes obviously, still shaking", "relationship_status", "Pat is engaged"),
    ("Lisa and I have separated.", "relationship_status", "Pat is no longer with their partner"),
    ("Well, I'm not single anymore. Met him on a walking holiday.", "relationship_status", "in a relationship"),
    ("new number!! it's 555-0199, the old one got spammed to death", "phone_number", "555-0199"),
    ("Update for anyone who cares: we've made the jump to Adelaide.", "residence", "Pat lives in Adelaide"),
    ("work's been insane, and we finally finished the move to Raleigh.", "residence", "Pat lives in Raleigh"),
    ("the traffic near Whitefield where I live now is something else", "residence", "Pat lives in Whitefield"),
    ("gave up on being veggie tbh, had a burger last week", "diet", "Pat is no longer veggie"),
    ("ok I've officially converted to the Canucks since moving out west", "team", "Pat supports the Canucks"),
    ("switched fully to vaping, haven't had an actual cigarette in 3 weeks", "smoking", "Pat quit smoking"),
    ("We've gone fully remote! They gave up the lease.", "work mode", "Pat works remotely"),
    ("company's making us go back to the office 5 days a week", "work mode", "Pat works in the office"),
    ("switched banks to Tangerine, the TD fees were a joke", "bank", "Pat banks with Tangerine"),
    ("had to drop out of the MBA, couldn't manage it with the new baby", "school", "Pat dropped out of MBA"),
]


@pytest.mark.parametrize(("content", "attribute", "text"), STATED + SHORTHAND)
def test_a_fact_stated_plainly_or_a_change_told_in_shorthand_sets_its_attribute(
    content: str, attribute: str, text: str
) -> None:
    found = attributes(content)
    assert attribute in found, found
    assert text in found[attribute]


@pytest.mark.parametrize(
    "content",
    [
        "people keep asking if Priya and I broke up because she's in Chennai. no! just long distance",
        "i graduated from nursing school in 2019",
        "my son graduated!!! so proud",
        "bought a honda civic for my son, his first car",
        "got a golf lesson booked for saturday",
        "moved in with my sister in leeds for the weekend while the boiler gets fixed",
        "back home in bolton for christmas, mum's cooking",
        "not vegan anymore? since when lol",
        "My husband's set himself up an email at last: dennis.wright@talktalk.net",
        "chase me later about the invoice",
        "left uni at 5 and went straight to the pub",
        "I drink like 4 coffees a day",
        "I'm at Starbucks now, come join",
        "bought a flat in leeds to rent out",
    ],
)
def test_what_is_no_change_of_the_speakers_own_sets_nothing_new(content: str) -> None:
    found = attributes(content)
    assert not set(found) & {
        "relationship_status",
        "school",
        "car",
        "residence",
        "diet",
        "email",
        "bank",
        "drinking",
        "employer",
    }, found


PAIRS = [
    {
        "update": True,
        "before": "i live in atlanta, midtown",
        "after": "first night in nashville and the new apartment smells",
    },
    {
        "update": True,
        "before": "i bank with chase",
        "after": "moved everything to ally, chase fees were literal robbery",
    },
    {"update": True, "before": "i'm on verizon", "after": "switched to mint mobile, saving $40 a month lol"},
    {"update": True, "before": "i go to ucla", "after": "dropped out of ucla, it wasn't for me"},
    {"update": True, "before": "i drive a honda accord", "after": "finally went hybrid, picked up a used prius"},
    {"update": True, "before": "i'm vegetarian", "after": "been eating chicken again since my doctor said so"},
    {"update": True, "before": "i smoke like a pack a day", "after": "3 weeks no cigs!!! the patch is helping"},
    {
        "update": False,
        "before": "i live in atlanta, midtown",
        "after": "back home in bolton for christmas, mum's cooking",
    },
    {"update": False, "before": "i bank with chase", "after": "chase me later about the invoice, i'm swamped"},
    {"update": False, "before": "i go to ucla", "after": "my son graduated!!! so proud of him"},
    {"update": False, "before": "i drive a honda accord", "after": "bought a honda civic for my son, his first car"},
]


def test_changes_told_in_shorthand_supersede_and_what_is_no_change_does_not(offline_namespace) -> None:
    figures = measure(offline_namespace, PAIRS)
    assert figures["false_updates"] == []
    assert figures["missed"] == []
