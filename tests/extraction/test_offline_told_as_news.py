"""Changes told as news while catching up or asking for help ("Since I'm in Vancouver now, should I sell the winter
tires?", "Kenji and I split up", "I got the charge nurse role!", "Jio user, how do I…"): read from one message, and
the updates they make, end to end."""

from __future__ import annotations

import pytest

from memoryadmin.extraction.strategies.grammar import third_person
from memoryadmin.extraction.strategies.offline import read_message
from memoryadmin.extraction.strategies.offline.gone import gone_in
from memoryadmin.memories.models import Memory, MemoryStatus
from tests.extraction.test_offline_news import TODAY, attributes
from tests.extraction.test_updates import measure


@pytest.mark.parametrize(
    ("content", "attribute", "text"),
    [
        # Where the speaker lives, said on the way to a question.
        (
            "Since I'm in Vancouver now and it barely snows, should I just sell the winter tires?",
            "residence",
            "Pat lives in Vancouver",
        ),
        (
            "Now that I'm up in Minneapolis, which vegetables can I start indoors?",
            "residence",
            "Pat lives in Minneapolis",
        ),
        ("we packed up everything and relocated to Porto last week!", "residence", "Pat lives in Porto"),
        ("Sorry for the radio silence. I'm in Jersey City now, sharing a place with my cousin.", "residence", "Jersey"),
        ("We gave up the Brooklyn lease and home is Jersey City now.", "residence", "Pat lives in Jersey City"),
        ("Finally got my own 1BHK in Koramangala, Bangalore!", "residence", "Pat lives in Koramangala"),
        ("Found a room in Peckham and moved in on Friday.", "residence", "Pat lives in Peckham"),
        # A partner named with the speaker, or as news.
        ("Ravi and I have been together five years now, it's crazy", "partner", "Pat's partner is Ravi"),
        ("Well, we're officially a couple now! His name is Mateo and he cooks.", "partner", "Pat's partner is Mateo"),
        (
            "I've met a lovely lady called Margaret at the bowls club and we're courting now.",
            "partner",
            "Pat's partner is Margaret",
        ),
        ("Daniel's my fiancé now!! he proposed at the top of Snowdon lol.", "partner", "Pat is engaged to Daniel"),
        ("The divorce was finalised on Thursday. I'm sad and relieved.", "relationship_status", "divorce"),
        # A name.
        ("Quick update - I'm officially Sarah Okoro now!", "name", "Pat's name is Sarah Okoro"),
        ("So I've decided to go by Sasha from now on - it feels more like me.", "name", "Pat goes by Sasha"),
        ("I've started introducing myself as James now, even at work.", "name", "Pat goes by James"),
        # A role, taken or had.
        ("I got the charge nurse role! I'm running the whole shift now.", "occupation", "Pat is a charge nurse"),
        ("Just started as ward sister (band 7). How do I run a handover?", "occupation", "Pat is a ward sister"),
        ("my title changed to Marketing Manager this month, same company.", "occupation", "Marketing Manager"),
        ("I'm the cafe's shift supervisor now! I do the rotas.", "occupation", "Pat is a shift supervisor"),
        ("Life as an accountant is pretty boring, but it's stable.", "occupation", "Pat is an accountant"),
        ("as a teaching assistant how can I support a child with ADHD?", "occupation", "Pat is a teaching assistant"),
        # An employer, a school.
        ("Help me thank my old team now that I've started at KPMG.", "employer", "Pat works at KPMG"),
        ("I work in the risk team at Banco Santander, can you explain Basel III?", "employer", "Banco Santander"),
        ("Santander let me go, and I'm doing contract work for BBVA now.", "employer", "Pat works at BBVA"),
        ("I'm loving my classes at UCLA, especially the film seminar.", "school", "Pat studies at UCLA"),
        # A service by using it.
        ("Jio user, how do I check my data balance?", "mobile_carrier", "Pat's mobile carrier is Jio"),
        ("Planet Fitness member, total beginner, can you give me a routine?", "gym", "Pat goes to Planet Fitness"),
        ("Virgin Media broadband keeps dropping, what can I check?", "internet_provider", "Virgin Media"),
        ("I'm banking with Itaú now because the new job pays salary there.", "bank", "Pat banks with Itaú"),
        # A diet, a status, a course, on the way to a request.
        ("now that I'm vegan, give me a dinner idea", "diet", "Pat is vegan"),
        ("I went back to being vegetarian - eggs and dairy are fine again.", "diet", "Pat is vegetarian"),
        ("I'm 34 and single - any tips for writing a dating profile?", "relationship_status", "Pat is single"),
        ("I'm a sophomore at Ohio State studying biology, can you help me?", "course", "Pat studies biology"),
        # How the speaker gets to work.
        ("I drive 40 minutes to work on the M62 every day, any audiobook suggestions?", "commute", "Pat drives"),
        ("I take the train now instead of driving, about 25 min.", "commute", "Pat takes the train now"),
        ("My commute is 90 minutes on the MRT and a bus, how can I use the time?", "commute", "Pat's commute is"),
        ("I've started cycling to work instead of taking the train!", "commute", "cycling to work"),
        ("My morning walk to work is the best part of my day.", "commute", "walk to work"),
        # Habits and looks, said as they are now.
        ("My hair's still blonde, but I'm so bored of it.", "hair colour", "blonde"),
        ("Still rocking my dark brown bob. What's new with you?", "hair colour", "brown bob"),
        ("Day 30 without a cigarette! I can't believe I actually quit.", "smoking", "Pat quit smoking"),
        ("I'm a social smoker, just the odd one at parties.", "smoking", "social smoker"),
        ("I've gone completely sober - it's been a month.", "drinking", "Pat is sober"),
        ("I had a relapse and I'm drinking again.", "drinking", "Pat drinks"),
        ("My company ended remote work, so I'm back in the office five days a week.", "work mode", "office"),
        ("I've gone back to eating meat - my trainer suggested more protein.", "diet", "Pat eats meat"),
        ("Being pescatarian is great, I eat so much salmon lol.", "diet", "Pat is pescatarian"),
        ("My biology degree is going well, though organic chem is brutal.", "course", "Pat studies biology"),
        ("My girlfriend Chloe and I want to adopt a cat - which breeds are good?", "partner", "Pat's partner is Chloe"),
        ("How do I introduce myself at my first team meeting at BMW?", "employer", "Pat works at BMW"),
        ("I'm at Deloitte now, the team is lovely", "employer", "Deloitte"),
        ("How often should I service my 2014 Honda Civic?", "car", "Pat drives a Honda Civic"),
        ("Been fully vegetarian since the start of the month and I'm sticking with it", "diet", "Pat is vegetarian"),
        ("just a heads up, it's Samantha Okoye now, the deed poll came through", "name", "Samantha Okoye"),
        ("I'm done with MI. RCB fan from now on, don't laugh", "team", "Pat supports RCB"),
        ("went permanently blonde last week, my hairdresser says it needs touch-ups", "hair colour", "blonde"),
        # States said plainly, or on the way to a question.
        ("I work fully remote.", "work mode", "fully remote"),
        ("I have mousy brown hair, what eyeshadow suits me?", "hair colour", "mousy brown hair"),
        ("What's a grocery budget for one person in Madrid? I rent a piso in Lavapiés.", "residence", "Lavapiés"),
        ("I'm still with Barclays, but their app is terrible.", "bank", "Pat banks with Barclays"),
        ("Everyone at work calls me Jim, which I've never liked much.", "name", "Pat goes by Jim"),
        ("Hey, it's Sarah Mitchell here, can't believe how long it's been!", "name", "Pat's name is Sarah Mitchell"),
        ("Sober for three years and counting! How are you?", "drinking", "Pat is sober"),
        ("Hybrid life: two days at home, three in the office.", "work mode", "Pat works hybrid"),
        ("I work for Siemens in Munich - what's a polite way to decline a meeting?", "employer", "Siemens"),
        ("We went fully remote! Help me set up a home office on a budget.", "work mode", "Pat works remotely"),
        ("started sixth form at Queen Mary's College, doing A-level chem and maths.", "school", "Queen Mary's College"),
        ("Proud owner of a (second-hand) Renault Clio as of Saturday!", "car", "Pat drives a Renault Clio"),
        ("I've switched GPs to Dr Chen at the new practice.", "doctor", "Pat's doctor is Dr Chen"),
        ("Moved to Boston and honestly I'm a Celtics fan now, don't judge.", "team", "Pat supports Celtics"),
        ("since moving to Madrid I've become a proper Atletico fan - I'm a member", "team", "Pat supports Atletico"),
        ("Well, we're officially a couple now! His name is Mateo.", "relationship_status", "in a relationship"),
        # Typed in lower case.
        ("moved home to galway since the job's fully remote, mam's delighted", "residence", "Galway"),
        ("my toyota hilux has done 300k km and still going", "car", "Toyota Hilux"),
        ("new role, data scientist, same team. finally get to do ML stuff", "occupation", "Pat is a data scientist"),
        ("made partner!!! 8 years of grinding.", "occupation", "Pat is a partner"),
        ("3 weeks no fags!! patches are doing their job.", "smoking", "Pat quit smoking"),
        ("switched to the cyber security msc instead, the modules were too stats heavy", "course", "cyber security"),
        # A profile's fields, filled in for a bot.
        ("Current residence: Melbourne, VIC (Fitzroy).", "residence", "Pat lives in Melbourne"),
        ("Employer: Deloitte, Chicago office.", "employer", "Pat works at Deloitte"),
        ("Update: new employer is Accenture, starting this Monday.", "employer", "Pat works at Accenture"),
        ("Relationship status: single, for the dating-tips feature.", "relationship_status", "Pat is single"),
        ("I am working in Infosys, Mysore campus, since 2019.", "employer", "Pat works at Infosys"),
    ],
)
def test_a_change_told_as_news_sets_its_attribute(content: str, attribute: str, text: str) -> None:
    found = attributes(content)
    assert attribute in found, found
    assert text in found[attribute]


@pytest.mark.parametrize(
    "content",
    [
        "Since I'm in Paris for the week, what should I see?",
        "I'm in Paris now for the conference, any dinner tips?",
        "I'm in HR now, it's so different.",
        "I'm in Year 11 now, so GCSEs next year",
        "my new flat in Bristol? no, still looking",
        "My sister relocated to Porto last week",
        "I'm at Costco now, want anything?",
        "I'm still thinking about moving to Leeds, since I'm in London now",
        "we're living in hope lol, the flat search is brutal",
        "so I've moved over to percussion in the band",
        "Tom started at KPMG on Monday",
        "Please call me back tomorrow",
    ],
)
def test_a_stay_a_department_a_question_or_someone_elses_news_sets_nothing(content: str) -> None:
    found = attributes(content)
    assert not {"residence", "employer", "name"} & set(found), found


@pytest.mark.parametrize(
    ("content", "names"),
    [
        ("I haven't told many people yet, but Kenji and I split up a few weeks ago.", ["Kenji"]),
        ("It's been a wild month. Jon and I decided to call it quits.", ["Jon"]),
        ("So Lucas and I went our separate ways last month.", ["Lucas"]),
        ("The divorce from Sarah was finalised on Tuesday.", ["Sarah"]),
        ("Santander let me go, and I'm doing contract work for BBVA now.", ["Santander"]),
        ("With the baby coming, the Enfield had to go.", ["Enfield"]),
        ("My last shift at St Mary's was so emotional.", ["St Mary"]),
        ("I've quit tennis - my elbow just can't take it anymore.", ["tennis"]),
        ("We lost Max a few weeks ago and weren't sure we were ready.", ["Max"]),
        ("The saxophone experiment is officially over; I sold it.", ["saxophone"]),
        ("Hung up my football boots after the knee injury.", ["football"]),
        ("I've put Japanese on hold and switched to Korean.", ["Japanese"]),
        ("we had to say goodbye to Biscuit on Tuesday. the house is so quiet", ["Biscuit"]),
        ("Dr Patel retired so I'm registered with Dr Osei at the same practice now", ["Dr Patel"]),
        ("dr chen retired so we got assigned to a new doctor, dr singh", ["dr chen"]),
        ("handed back the keys on the jc apartment yesterday", ["jc"]),
        # Not given up: denied, or dropped and broken.
        ("Haha no I haven't quit Ericsson, I was just venting yesterday", []),
        ("Dropped my OnePlus and cracked the screen, repair shop says two days", []),
        ("Tom left me a voicemail about the party", []),
        ("said goodbye to London for two weeks, Tokyo here I come", []),
    ],
)
def test_what_ended_is_named(content: str, names: list[str]) -> None:
    assert gone_in(content) == names


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ("I'm vegetarian, give me a quick lunch I can take to work.", "Pat is vegetarian"),
        ("I study law at the Universidad de Buenos Aires, help me summarize this ruling.", "Pat studies law at the "),
        ("I use Spotify, make me a focus playlist.", "Pat uses Spotify"),
    ],
)
def test_a_request_after_a_statement_is_not_part_of_it(content: str, text: str) -> None:
    texts = [r.text for r in read_message(content, "Pat", TODAY)]
    assert any(t.startswith(text) for t in texts), texts
    assert not any("them" in t or "playlist" in t or "lunch" in t or "ruling" in t for t in texts), texts


def test_a_request_to_the_listener_is_no_part_of_what_happened() -> None:
    texts = [r.text for r in read_message("We went fully remote! Help me set up a home office.", "Pat", TODAY)]
    assert not any("home office" in t for t in texts), texts


@pytest.mark.parametrize("content", ["I drove to work today because of the rain", "I walk to work when it's sunny"])
def test_one_days_way_to_work_is_no_commute(content: str) -> None:
    assert "commute" not in attributes(content)


def test_a_name_set_before_what_it_names_is_kept() -> None:
    texts = [
        r.text for r in read_message("Max, my golden retriever, loves the beach more than anything.", "Pat", TODAY)
    ]
    assert texts == ["Pat's golden retriever Max loves the beach more than anything"]


@pytest.mark.parametrize("after", ["My boyfriend Tom and I split up.", "My boyfriend Tom dumped me."])
def test_a_partner_named_in_a_break_up_is_no_partner(offline_namespace, after: str) -> None:
    pairs = [{"update": True, "before": "My boyfriend Tom is a chef.", "after": after}]
    assert measure(offline_namespace, pairs)["missed"] == []
    current = Memory.objects.filter(namespace=offline_namespace, status=MemoryStatus.ACTIVE, attribute="partner")
    assert list(current.values_list("text", flat=True)) == []


def test_the_speaker_second_of_two_subjects_keeps_the_verb() -> None:
    assert third_person("Kenji and I are still going strong", "Pat") == "Kenji and Pat are still going strong"
    assert third_person("Tom and I love hiking", "Pat") == "Tom and Pat love hiking"
    assert third_person("I love hiking", "Pat") == "Pat loves hiking"


def test_a_request_keeps_its_fact_and_nothing_of_the_divorce_is_lost() -> None:
    texts = [r.text for r in read_message("The divorce from Sarah was finalised on Tuesday.", "Pat", TODAY)]
    assert texts == ["Pat is divorced"]


PAIRS = [
    {
        "update": True,
        "before": "I live in Toronto, is it worth getting winter tires?",
        "after": "Since I'm in Vancouver now and it barely snows, should I sell the winter tires?",
    },
    {
        "update": True,
        "before": "My girlfriend Chloe and I want to adopt a cat - which breeds are good for a flat?",
        "after": "Chloe and I split up. How do I make the flat feel like mine again?",
    },
    {
        "update": True,
        "before": "Ravi and I have been together five years now, it's crazy how time flies.",
        "after": "It's been a hard month. Ravi moved out - we ended things after five years.",
    },
    {
        "update": True,
        "before": "Being a staff nurse on the cardiac ward is tiring, but I love it.",
        "after": "I got the charge nurse role! I'm running the whole shift now.",
    },
    {
        "update": True,
        "before": "Jio user, how do I check my data balance?",
        "after": "Moved my number to Airtel. How do I check data balance now?",
    },
    {
        "update": True,
        "before": "I play tennis at the club twice a week, how do I fix my backhand?",
        "after": "I've quit tennis - my elbow just can't take it anymore.",
    },
    {
        "update": True,
        "before": "I'm a nurse at Mount Sinai, can you suggest meal prep ideas for 12-hour shifts?",
        "after": "Meal prep ideas again please, but I'm at NYU Langone now and my shifts are 8 hours.",
    },
    {
        "update": True,
        "before": "I drive 40 minutes to work on the M62 every day, any audiobook suggestions?",
        "after": "I take the train now instead of driving, about 25 min. Good podcasts for that length?",
    },
    {
        "update": False,
        "before": "I drive 40 minutes to work on the M62 every day, any audiobook suggestions?",
        "after": "Took the train to work today because the car's in the garage.",
    },
    {
        "update": True,
        "before": "My hair's still blonde, but I'm so bored of it.",
        "after": "I did it - I went platinum! It took three sessions.",
    },
    {
        "update": False,
        "before": "I take the bus to work, it's slow.",
        "after": "I went platinum! It took three sessions and my scalp is not happy.",
    },
    {
        "update": True,
        "before": "My commute is 90 minutes on the MRT and a bus, how can I use the time?",
        "after": "Since we moved I just walk 10 minutes to the office.",
    },
    {
        "update": True,
        "before": "I'm a widower of 76. How do I stop feeling lonely in the evenings?",
        "after": "I've met a lovely lady called Margaret at the bowls club and we're courting now.",
    },
    {
        "update": False,
        "before": "my toyota hilux has done 300k km and still going",
        "after": "my brother just bought a ford ranger raptor, he won't shut up about it. still loving my hilux",
    },
    {
        "update": False,
        "before": "im single rn, focusing on work",
        "after": "should i download bumble or is it a waste of time?? single and kinda bored of it",
    },
    {
        "update": False,
        "before": "My mail id is rahul.sharma@gmail.com.",
        "after": "Office gave me new id rahul.s@hcltech.com but for personal please use the gmail only.",
    },
    {
        "update": False,
        "before": "My girlfriend Chloe is a vet.",
        "after": "my girlfriend Chloe's sister got engaged last night, Chloe cried for an hour",
    },
    {
        "update": True,
        "before": "Need gift ideas for my boyfriend Daniel, he's obsessed with hiking.",
        "after": "Daniel's my fiancé now!! he proposed at the top of Snowdon lol.",
    },
    {
        "update": False,
        "before": "I've got dark brown hair.",
        "after": "dyed my hair pink for the party, washes out tomorrow",
    },
    {
        "update": False,
        "before": "I take the Metro to work in Delhi.",
        "after": "Our office is shifting to Gurgaon next year apparently, my commute is going to be brutal",
    },
    {
        "update": False,
        "before": "I'm a UX designer at Spotify.",
        "after": "I'm a UX designer, mostly mobile onboarding flows these days",
    },
    {
        "update": False,
        "before": "My Mazda 3 is perfect for the city, so easy to park.",
        "after": "My dad just bought a huge pickup truck lol. I'm sticking with my Mazda, no way I'm parking that.",
    },
    {
        "update": False,
        "before": "I'm a UX designer at Spotify, can you review my case study intro?",
        "after": "For my About page: I started out as a graphic designer, and now I'm a UX designer. Polish that.",
    },
    {
        "update": True,
        "before": "You can always reach me on my usual number, 07700 900123.",
        "after": "Quick heads up: I've changed my number! The new one is 07700 900456.",
    },
    {
        "update": True,
        "before": "Max, my golden retriever, loves the beach more than anything.",
        "after": "Meet Mochi, our new shiba inu! We lost Max a few weeks ago.",
    },
    {
        "update": False,
        "before": "I live in Toronto, is it worth getting winter tires?",
        "after": "I'm in Paris now for the conference, any dinner tips?",
    },
    {
        "update": False,
        "before": "Ravi and I have been together five years now, it's crazy how time flies.",
        "after": "Ravi and I are celebrating our anniversary in Rome next week!",
    },
    {
        "update": False,
        "before": "I'm a nurse at Mount Sinai.",
        "after": "My sister started at KPMG on Monday, so proud of her",
    },
]


def test_news_told_on_the_way_supersedes_and_a_stay_does_not(offline_namespace) -> None:
    figures = measure(offline_namespace, PAIRS)
    assert figures["false_updates"] == []
    assert figures["missed"] == []
