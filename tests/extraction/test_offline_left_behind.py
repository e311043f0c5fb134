"""Changes told by what the speaker left ("I switched from Home Depot", "Comcast is finally gone"), providers named
plainly ("my operator is Vivo", "I see a therapist named Rachel"), and chat typed as it is dictated ("switched to ING
no fees"): read from one message, and the updates they make, end to end."""

from __future__ import annotations

import pytest

from memoryadmin.extraction.strategies.offline import read_message
from memoryadmin.extraction.strategies.offline.dictated import undictated
from memoryadmin.extraction.strategies.offline.gone import gone_in
from tests.extraction.test_offline_news import TODAY, attributes
from tests.extraction.test_updates import measure


@pytest.mark.parametrize(
    ("content", "names"),
    [
        # A name spelt as one is one, whatever its words ("home" is no name alone).
        ("I switched from Home Depot last week.", ["Home Depot"]),
        ("Add a reminder for my cut with Tony, I stopped going to Great Clips.", ["Great Clips"]),
        # A while said in another, earlier clause is that clause's.
        ("Remind me to bring my ID tomorrow, I switched from Home Depot last week.", ["Home Depot"]),
        ("Comcast is finally gone.", ["Comcast"]),
        ("New boyfriend, Liam's long gone.", ["Liam"]),
        ("I've stopped doing Tesco, Lidl's half the price.", ["Tesco"]),
        ("fyi I don't work at Target anymore, I'm at Costco now.", ["Target"]),
        ("um so news I'm not at Ambev anymore I am at Mercado Livre now", ["Ambev"]),
        ("I moved everything from TD to Tangerine.", ["TD"]),
        ("I've fully converted from tennis.", ["tennis"]),
        ("I'm learning piano now instead of guitar", ["guitar"]),
        ("I relocated for work and my Singapore lease ended.", ["Singapore"]),
        ("we moved him there from Bright Horizons.", ["Bright Horizons"]),
        ("The Scotiabank accounts are closed, and I'm saving", ["Scotiabank"]),
        ("Monzo is my main bank now and Santander is closed.", ["Santander"]),
        ("Handed my Google badge back on Friday.", ["Google"]),
        ("Mochi lives with my mom now because of my son's allergies", ["Mochi"]),
        ("We lost Hector in the autumn, sadly.", ["Hector"]),
        ("I gave Rio to my uncle because I moved", ["Rio"]),
        ("I'm seeing someone new, things with Magda ended in summer", ["Magda"]),
        ("My old Golf is gone. Said goodbye at the dealer yesterday", ["Golf"]),
        ("Anna and I called it a day. I'm seeing Priya now", ["Anna"]),
        ("Tried the new place and I'm not going back to Ria.", ["Ria"]),
        # Which bank it was is no secret.
        ("closed my Access Bank account, I use Kuda now for everything", ["Access Bank"]),
    ],
)
def test_what_the_speaker_left_is_named(content: str, names: list[str]) -> None:
    assert gone_in(content) == names


@pytest.mark.parametrize(
    "content",
    [
        "I transferred $200 from Chase to savings",
        "Ditched Spotify, just for a month",
        "sometimes i wish I was a chef instead of engineer lol",
        "my sister moved away from Leeds",
        # Someone else leaves.
        "Tom left Google on Friday for a startup",
        "Half my department has left Tesco for the new Amazon warehouse.",
        "My in-laws have switched from Morrisons to Aldi",
        "our vice president quit chess club so i'm doing all the admin alone",
        # One occasion.
        "We're going to the cathedral this Easter instead of St Anne's",
        "I go to Equinox no more? who told you that",
        "left work early",
        "the gym is closed for renos",
        "Tesco closed early today",
        "my sister's Barclays account is closed",
        "we lost the match",
        "I'm not going back to Paris this year",
    ],
)
def test_money_moved_a_while_a_wish_or_someone_elses_move_leaves_nothing(content: str) -> None:
    assert gone_in(content) == []


@pytest.mark.parametrize(
    ("content", "attribute", "text"),
    [
        ("I see a therapist named Rachel on BetterHelp.", "therapist", "Pat sees a therapist named Rachel"),
        ("I see Dr Nowak for my diabetes", "doctor", "Pat sees Dr Nowak"),
        ("I see Dr. Goldberg for my teeth.", "dentist", "Pat sees Dr. Goldberg for their teeth"),
        ("I see Kelly at Great Clips", "hairdresser", "Pat sees Kelly at Great Clips"),
        ("my hairdresser is Ate Joy in our barangay", "hairdresser", "Pat's hairdresser is Ate Joy"),
        ("my vet is Riverside Animal Clinic", "vet", "Pat's vet is Riverside Animal Clinic"),
        ("my operator is Vivo, the chip I have since 2015", "mobile_carrier", "Pat's operator is Vivo"),
        ("I'm with Optus on a postpaid plan.", "mobile_carrier", "Pat is with Optus on a postpaid plan"),
        ("I'm using Jio sim in my phone", "mobile_carrier", "Pat is using Jio sim"),
        ("I do my weekly shop at Tesco.", "supermarket", "Pat does their weekly shop at Tesco"),
        ("ported my number to Airtel, the network was so bad", "mobile_carrier", "Pat's mobile carrier is Airtel"),
        ("I moved my salary account to HDFC, the branch was too crowded", "bank", "Pat banks with HDFC"),
        # "no fees" is said after the change, not of it.
        ("switched to ING no fees, sparkasse was charging me every month", "bank", "Pat banks with ING"),
        ("I work afternoon shift 2 to 10 at the factory", "shift", "Pat works afternoon shift"),
        ("they put me on night shift from this month 10 to 6", "shift", "Pat works night shifts"),
        ("I work in office full time", "work mode", "Pat works in office full time"),
        ("I drink beer on weekends only", "drinking", "Pat drinks beer on weekends only"),
        ("I go to gym called Body Line in Ikeja", "gym", "Pat goes to gym called Body Line"),
        ("um yeah so the move is done I'm in Hamburg now Altona neighborhood", "residence", "Pat lives in Hamburg"),
        ("so i moved back w my parents in monterrey last week", "residence", "Pat lives in Monterrey"),
        ("so I switched to KIT Karlsruhe for my masters, most credits transferred", "school", "Pat studies at KIT"),
        ("changed school this year I'm at Modern School now because of my dads posting", "school", "Modern School"),
        ("I've always cheered for the Chargers.", "team", "Pat has always cheered for the Chargers"),
        ("Find me a standing desk, my role went fully remote.", "work mode", "Pat works remotely"),
        ("Not proud of it, but I'm smoking again.", "smoking", "Pat smokes"),
        ("I've started having the odd cocktail.", "drinking", "Pat drinks now and then"),
        ("Can you remind me to return the modem? We went with AT&T Fiber.", "internet_provider", "AT&T Fiber"),
        ("Remind me at 1pm to leave, I'm on second shift now, 3 to 11.", "shift", "Pat is on second shift now"),
        ("I'm doing an MBA at night while working.", "course", "Pat is doing an MBA"),
        ("I dropped the MBA and enrolled in a data science bootcamp instead", "course", "a data science bootcamp"),
        ("changed dentist going to Dr Iyer now Kapoor too expensive", "dentist", "Pat's dentist is Dr Iyer"),
        ("changed my family doctor to Dr Fernandes, Dr Mehta retired", "doctor", "Pat's doctor is Dr Fernandes"),
        ("I'm seeing Dr Wisniewska now for the diabetes", "doctor", "Pat is seeing Dr Wisniewska"),
        ("Please remember my new address is in Tacoma, I moved up there", "residence", "Pat lives in Tacoma"),
        ("My primary care doc is Dr. Weiss.", "doctor", "Pat's primary care doc is Dr. Weiss"),
        ("Dr. Weiss retired so I'm with Dr. Nakamura now", "doctor", "Pat is with Dr. Nakamura now"),
        ("Our vet is the Banfield inside PetSmart.", "vet", "Pat's vet is the Banfield"),
        ("My phone plan is with Rogers.", "mobile_carrier", "Pat's phone plan is with Rogers"),
        ("Any alcohol-free drinks for a party? I've been sober since September.", "drinking", "Pat is sober"),
        ("leaving at 7:40 for the office, we're back in person full time now", "work mode", "in the office"),
        ("My mobile is with Rogers, bundled with the home internet.", "mobile_carrier", "Pat's Mobile is with Rogers"),
        ("We get our broadband through Eir, though it's been patchy.", "internet_provider", "broadband through Eir"),
        ("Our home fibre is through Vumatel.", "internet_provider", "Pat's home fibre is through Vumatel"),
        ("I've been driving a Mazda 3 for the past seven years.", "car", "Pat has been driving a Mazda 3"),
        ("I've worked at Tesco's head office in Welwyn for nine years", "employer", "Pat has worked at Tesco's"),
        ("I've been at the Royal Bank of Canada for twenty years", "employer", "the Royal Bank of Canada"),
        ("I follow the 5:2 diet, which has worked well for me.", "diet", "Pat follows the 5:2 diet"),
        ("I'm following a plant-based diet now, on doctor's orders.", "diet", "a plant-based diet"),
        ("I'm now fully vegetarian.", "diet", "Pat is now fully vegetarian"),
        ("We've emigrated to Perth.", "residence", "Pat and others have emigrated to Perth"),
        ("We finally collected the keys to our BTO flat in Punggol", "residence", "Pat lives in Punggol"),
        ("I wanted to let you know that Lorraine and I have separated.", "relationship_status", "no longer with"),
        ("my hairdresser is kayla at studio 9, she's a genius", "hairdresser", "Pat's hairdresser is kayla"),
        ("monzo is my bank, the coral card is iconic", "bank", "Monzo is Pat's bank"),
        ("i vape like constantly, the mango one is my fave", "smoking", "Pat vapes"),
        ("day 20 no vape, threw it in the bin", "smoking", "Pat quit smoking"),
        ("new dentist: dr. chen at smile studio, she's way nicer", "dentist", "Pat's dentist is Dr. chen"),
        ("my new stylist is jules from a tiny place in shoreditch", "hairdresser", "Pat's new stylist is jules"),
        ("I get most of our groceries from FairPrice near the MRT station.", "supermarket", "from FairPrice"),
        (
            "Our groceries come from Loblaws, which is on my way home.",
            "supermarket",
            "Pat's groceries come from Loblaws",
        ),
        # "No Frills" is a name, not a negation.
        ("We've started doing our grocery shopping at No Frills", "supermarket", "at No Frills"),
        ("We've switched our weekly shop to Aldi.", "supermarket", "Pat shops at Aldi"),
        ("My employer has approved my request to work from home full-time.", "work mode", "Pat works remotely"),
        ("I've negotiated a fully remote arrangement since we moved", "work mode", "Pat works remotely"),
        ("office called everyone back so like I'm going to office 5 days now", "work mode", "in the office"),
        ("I stopped eating meat last month", "diet", "Pat stopped eating meat"),
        ("so i'm gluten free now, goodbye bagels", "diet", "Pat is gluten free now"),
        ("I'm a bank teller at PNC now!", "employer", "Pat works at PNC"),
        ("I finally moved my chequing and savings to Tangerine.", "bank", "Pat banks with Tangerine"),
        ("update I'm bartender now in the same place", "occupation", "Pat is a bartender"),
        ("I got bumped up to store manager this week.", "occupation", "Pat is a store manager"),
        ("Good news: the governors appointed me as headteacher from this term.", "occupation", "Pat is a headteacher"),
        ("I've now taken up post as a sergeant at the Bolton station.", "occupation", "Pat is a sergeant"),
        # Said with its negation, a habit's absence is its value: what "I'm smoking again" replaces.
        ("I don't drink at all.", "drinking", "Pat doesn't drink at all"),
        ("I'm a non-smoker, never even tried it.", "smoking", "Pat is a non-smoker"),
        ("I switched therapist now with Ms Reyes more comfortable", "therapist", "Pat's therapist is Ms Reyes"),
        ("I'm teetotal, never touched alcohol really", "drinking", "Pat is teetotal"),
        ("We've moved to Virgin Media for broadband; the engineer came", "internet_provider", "is Virgin Media"),
        ("We've moved our fibre over to Openserve via Afrihost", "internet_provider", "is Openserve"),
        ("The office has closed for good, so we're all fully remote now.", "work mode", "Pat works remotely"),
        ("Haven't touched a cigarette in five weeks.", "smoking", "Pat quit smoking"),
        ("Since the move, my new GP there is Dr Rahman.", "doctor", "Pat's new GP there is Dr Rahman"),
        ("I've been seeing a counsellor called Helen through work.", "therapist", "a counsellor called Helen"),
        ("I'm now seeing Dr Kofi Asante instead.", "doctor", "Pat is now seeing Dr Kofi Asante"),
        ("Dr Fitzgerald has retired, and I've been assigned to Dr Nolan.", "doctor", "assigned to Dr Nolan"),
        ("I haven't had a drink in years; I simply lost the taste for it.", "drinking", "Pat hasn't had a drink"),
        ("It's been four weeks since my last cigarette.", "smoking", "Pat quit smoking"),
        ("I'm sixty days without a pipe, after a worrying test.", "smoking", "Pat quit smoking"),
        ("I've finally given up the vape as well.", "smoking", "Pat quit smoking"),
        ("lakers fan forever, lebron is my dad", "team", "Pat supports Lakers"),
        ("doing sober for real now, no drinks at all, 3 weeks in", "drinking", "Pat is sober"),
        ("changed my course to journalism, english lit was too much", "course", "Pat studies journalism"),
        # "…, austin heat who??" forgets the old place; it asks nothing.
        ("moved to denver 2 weeks ago, the mountains are unreal, austin heat who??", "residence", "moved to Denver"),
        # Chat's shorthand written out: "w/" is "with".
        ("registered w/ a new gp near my flat, dr. okafor", "doctor", "Pat is registered with a new gp"),
        ("ngl living in this tiny flat in camden w/ 3 ppl is chaos", "residence", "in Camden with 3 people"),
        # Punctuation said aloud ends the clause it closes.
        ("bike got stolen period now I have a Honda Activa", "car", "Pat has a Honda Activa"),
    ],
)
def test_a_provider_named_plainly_or_changed_sets_its_attribute(content: str, attribute: str, text: str) -> None:
    found = attributes(content)
    assert attribute in found, found
    assert text in found[attribute]


@pytest.mark.parametrize(
    "content",
    [
        "I see what you mean",
        "I see. That makes sense",
        "I see Tom at Starbucks Coffee",
        "I'm with Sarah on the project plan",
        "my sister switched to Vodafone for the data",
        "I switched to Spotify for the music",
        "I go to Equinox no more",
        "my friend picked up smoking again",
        "my son enrolled in a coding bootcamp",
        "my mum changed her dentist to Dr Ray",
        "my mum's new address is in Leeds",
        "My mobile is a Nokia flip phone",
        "my hairdresser is amazing",
        "my sister's new dentist is Dr Ray",
        "my maid of honour just broke up w/ her bf and now i'm like do we still do the bachelorette",
        "my sister is working from home permanently",
        "my sister got promoted to store manager",
        "My grandson set me up with a new Samsung, and I've finally retired the old iPhone.",
        "I'm now the owner of an iPhone SE, and I've discovered WhatsApp.",
        "I don't drink coffee",
        "I don't smoke indoors",
        "We've moved to Virgin Media for broadband",
        "my dad is sixty days without a cigarette",
        "my brother is a Chelsea fan for life",
        "my sister changed her course to law",
    ],
)
def test_a_reaction_someone_elses_change_or_another_plan_names_no_provider(content: str) -> None:
    found = attributes(content)
    assert not set(found) & {
        "therapist",
        "hairdresser",
        "mobile_carrier",
        "bank",
        "gym",
        "doctor",
        "smoking",
        "course",
    }, found


@pytest.mark.parametrize(
    ("dictated", "written"),
    [
        ("bike got stolen period now I have a scooty", "bike got stolen. now I have a scooty"),
        ("I'm bartender now comma better tips", "I'm bartender now, better tips"),
        ("day 30 without cigarette exclamation mark I quit", "day 30 without cigarette! I quit"),
        ("is it open question mark", "is it open?"),
        # The noun stays a noun.
        ("I'm on my period", "I'm on my period"),
        ("a trial period of three months", "a trial period of three months"),
        ("the comma is misplaced", "the comma is misplaced"),
        ("back at my parents' rn bc rent is insane", "back at my parents' right now because rent is insane"),
        ("living w/ my cousin, my gf maya too", "living with my cousin, my girlfriend maya too"),
        ("BC is lovely in spring", "BC is lovely in spring"),
        ("a new line of work", "a new line of work"),
    ],
)
def test_punctuation_said_aloud_is_written(dictated: str, written: str) -> None:
    assert undictated(dictated) == written


@pytest.mark.parametrize(
    ("dictated", "written"),
    [
        # A hesitation where the words before want no more ends the thought; inside a phrase it is left out.
        (
            "I'm a nurse on the cardiac ward um twelve hour shifts are killing me",
            "I'm a nurse on the cardiac ward. Twelve hour shifts are killing me",
        ),
        ("I'm um a nurse", "I'm a nurse"),
        ("I went to um the um shop on Friday", "I went to the shop on Friday"),
        ("I'm a nurse um uh twelve hour shifts are killing me", "I'm a nurse. Twelve hour shifts are killing me"),
        # A stop before the hesitation stays; an acronym is no hesitation.
        (
            "I have no idea what to do about that. Um, I moved to Leeds last month",
            "I have no idea what to do about that. I moved to Leeds last month",
        ),
        ("I study at UM in Miami", "I study at UM in Miami"),
        ("I work in ERM at Deloitte", "I work in ERM at Deloitte"),
        ("my first day at KPMG so yeah new badge", "my first day at KPMG. New badge"),
        ("my umbrella broke uh oh", "my umbrella broke. Oh"),
        # "I" opening a thought, in a message dictated with no mark inside it.
        (
            "so I finally did it I'm not nursing anymore I started as a paramedic on Monday",
            "so I finally did it. I'm not nursing anymore. I started as a paramedic on Monday",
        ),
        ("Yesterday I ran my first half marathon in Leeds", "Yesterday I ran my first half marathon in Leeds"),
        (
            "btw since the move to Denver I've been hiking every weekend",
            "btw since the move to Denver I've been hiking every weekend",
        ),
        (
            "I know I always said Arctic Monkeys were the best band",
            "I know I always said Arctic Monkeys were the best band",
        ),
        # A message with its marks keeps them; a hesitation between two of its sentences is left out.
        ("I moved to Leeds, I love it here and I work at Asda", "I moved to Leeds, I love it here and I work at Asda"),
        ("The umbrella is mine. Uh, the red one", "The umbrella is mine. The red one"),
    ],
)
def test_hesitations_and_run_ons_of_dictation_part_thoughts(dictated: str, written: str) -> None:
    assert undictated(dictated) == written


@pytest.mark.parametrize(
    "content",
    [
        "I'm seeing Dr Wisniewska now for the diabetes",
        "I've been seeing a counsellor called Helen through work.",
        "I've been seeing a psychotherapist called Miriam in Hampstead.",
    ],
)
def test_a_doctor_or_a_therapist_seen_is_no_partner(content: str) -> None:
    found = attributes(content)
    assert "partner" not in found and "relationship_status" not in found, found


def test_no_before_the_fact_still_negates_it() -> None:
    assert read_message("I have no car", "Pat", TODAY) == []
    assert read_message("I have no idea", "Pat", TODAY) == []


PAIRS = [
    {"update": True, "before": "I work at the Home Depot in Mesa.", "after": "I switched from Home Depot last week."},
    {
        "update": True,
        "before": "I do my weekly shop at Tesco.",
        "after": "Can you plan meals around Lidl's weekly offers? I've stopped doing Tesco, Lidl's half the price.",
    },
    {
        "update": True,
        "before": "I see a therapist named Rachel on BetterHelp.",
        "after": "Remind me about my Thursday session with Dr. Iyer, I left BetterHelp and found someone local.",
    },
    {
        "update": True,
        "before": "my operator is Vivo, the chip I have since 2015",
        "after": "I left vivo, now I'm on Claro, they gave me better plan for same price",
    },
    {"update": True, "before": "I bank with Access Bank", "after": "switched to Kuda no fees, so much better"},
    {"update": True, "before": "I bank with Access Bank", "after": "closed my access bank account I use Kuda now"},
    {"update": True, "before": "I eat pretty much everything.", "after": "I stopped eating meat last month"},
    {"update": True, "before": "I don't drink at all.", "after": "I've started having the odd cocktail."},
    {"update": True, "before": "I'm using Jio sim in my phone", "after": "ported my number to Airtel last week"},
    {
        "update": True,
        "before": "I work afternoon shift 2 to 10 at the factory",
        "after": "they put me on night shift from this month period 10 to 6",
    },
    {
        "update": True,
        "before": "my car is a VW Golf diesel",
        "after": "so I got rid of the golf now I drive a Tesla Model 3",
    },
    {
        "update": True,
        "before": "I work in Wipro as tester in Hyderabad",
        "after": "joined amazon last week as QA engineer, wipro is over for me",
    },
    {
        "update": True,
        "before": "I work at Target, in the Fresno store.",
        "after": "fyi I don't work at Target anymore, I'm at Costco now.",
    },
    {"update": False, "before": "I bank with Chase.", "after": "I transferred $200 from Chase to my savings"},
    {"update": False, "before": "I do my weekly shop at Tesco.", "after": "Tesco was packed today, ugh"},
    {
        "update": False,
        "before": "I work afternoon shift 2 to 10 at the factory",
        "after": "covering a night shift for Ravi tomorrow, just the one",
    },
    {"update": False, "before": "I go to gym called Body Line", "after": "I stopped going to Body Line for a while"},
    {
        "update": False,
        "before": "I'm a barista at Costa, part-time.",
        "after": "My mate keeps calling me 'coffee executive' but I'm still just a barista at Costa lol",
    },
    {
        "update": False,
        "before": "We do the big weekly shop at Morrisons in Wakefield.",
        "after": "My in-laws have switched from Morrisons to Aldi and keep sending us photos of their receipts.",
    },
    {"update": False, "before": "I'm on Vodafone, unlimited plan.", "after": "my sister switched to O2 for the data"},
    {
        "update": False,
        "before": "I work as mechanical engineer designing pumps",
        "after": "sometimes i wish I was a chef instead of engineer lol cooking is my therapy",
    },
]


def test_what_the_speaker_left_supersedes_and_what_is_no_change_does_not(offline_namespace) -> None:
    figures = measure(offline_namespace, PAIRS)
    assert figures["false_updates"] == []
    assert figures["missed"] == []
