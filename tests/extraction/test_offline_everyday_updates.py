"""Held values said as people type them to an assistant, each read from one message: what a later change of the
value has to replace (`update_pairs_fresh.json` gives the pairs these came from)."""

from __future__ import annotations

from datetime import date

import pytest

from memoryadmin.extraction.strategies.offline import read_message

TODAY = date(2026, 4, 1)


def readings(content: str) -> list[tuple[str, str]]:
    return [(r.attribute, r.text) for r in read_message(content, "Pat", TODAY)]


@pytest.mark.parametrize(
    ("content", "attribute", "text"),
    [
        # A form's field filled in for an assistant.
        (
            "Hi, I want to add a named driver to my policy. Marital status: single.",
            "relationship_status",
            "Pat is single",
        ),
        ("Occupation: self-employed electrician.", "occupation", "Pat is a self-employed electrician"),
        # A service left for another, with or without "I".
        ("finally left o2 for voxi, 10 pounds a month", "mobile_carrier", "Pat's mobile carrier is Voxi"),
        ("I ditched Vodafone for EE", "mobile_carrier", "Pat's mobile carrier is EE"),
        ("I ported my number from O2 to EE", "mobile_carrier", "Pat's mobile carrier is EE"),
        ("finally ported over from Vodafone to Lebara", "mobile_carrier", "Pat's mobile carrier is Lebara"),
        (
            "switched from Comcast to AT&T Fiber, calls should be smoother",
            "internet_provider",
            "Pat's internet provider is AT&T",
        ),
        ("I left Barclays for Monzo", "bank", "Pat banks with Monzo"),
        ("I moved to Three last month", "mobile_carrier", "Pat's mobile carrier is Three"),
        ("I moved to Halifax last year", "residence", "Pat moved to Halifax in 2025"),
        ("I joined Monzo as a data analyst", "employer", "Pat joined Monzo as a data analyst"),
        # News told as a riddle, the speaker its answer.
        ("guess who's vegan now 🌱 cut out dairy and eggs completely this month", "diet", "Pat is vegan now"),
        ("guess who lives in Glasgow now!! got the keys yesterday 🎉", "residence", "Pat lives in Glasgow now"),
        ("guess who's the new sous chef 👨‍🍳", "occupation", "Pat is the new sous chef"),
        # Where the speaker works, said of the people or the shifts there.
        ("my manager at Deloitte scheduled another 7pm call, love that for me", "employer", "Pat works at Deloitte"),
        (
            "our CTO at Monzo just announced a hackathon next month, any project ideas?",
            "employer",
            "Pat works at Monzo",
        ),
        ("shift at tesco again tomorrow, 6am start ugh", "employer", "Pat works at Tesco"),
        ("officially a Bupa employee as of today!", "employer", "Pat works at Bupa"),
        (
            "starting at the Sainsbury's on Holloway Rd monday, better pay",
            "employer",
            "Pat is starting at the Sainsbury's",
        ),
        # Who the speaker is, said on the way to a question.
        (
            "As a high school chemistry teacher, I need some lab ideas",
            "occupation",
            "Pat is a high school chemistry teacher",
        ),
        (
            "freelance graphic designer here, clients keep asking for revisions 💀",
            "occupation",
            "Pat is a freelance graphic designer",
        ),
        ("married 15 years this june, any ideas for a crystal anniversary?", "relationship_status", "Pat is married"),
        (
            "my boyfriend and I hit our 2 year anniversary next week, any gift ideas?",
            "relationship_status",
            "Pat is in a relationship",
        ),
        ("my new boyfriend Marco doesn't care about sports at all", "partner", "Pat's partner is Marco"),
        ("after the breakup with Lena I met Sophie, we've been together a month", "partner", "Pat's partner is Sophie"),
        (
            "Omar and I split, but I'm now with Daniel, met him at a friend's wedding 🥰",
            "partner",
            "Pat's partner is Daniel",
        ),
        # Homes.
        ("my landlord in Leith still hasn't fixed the boiler 🙄", "residence", "Pat lives in Leith"),
        ("ok the move to Bristol is DONE. new place in Bedminster", "residence", "Pat lives in Bristol"),
        ("living with my parents in Pune till I save enough", "residence", "Pat is living with their parents in Pune"),
        ("moved back to my hometown, Columbus. Honestly feels weird.", "residence", "hometown Columbus"),
        ("moving day was saturday, officially a Galway girl now lol", "residence", "Pat lives in Galway"),
        (
            "Just signed a lease in Seattle, first night in the new place tonight",
            "residence",
            "signed a lease in Seattle",
        ),
        # Things had, services used, sides supported.
        ("sold the Golf, driving a Tesla Model 3 now. any charging tips?", "car", "Pat drives a Tesla Model 3"),
        ("I don't own a car, I just bike everywhere", "car", "Pat doesn't own a car"),
        ("doing keto, day 40! down 6kg", "diet", "Pat is doing keto"),
        ("my Chase account charged me another overdraft fee 😤", "bank", "Pat banks with Chase"),
        ("switched to a local credit union, bye Chase forever", "bank", "Pat banks with a local credit union"),
        ("switched to BT full fibre and no more drops!", "internet_provider", "Pat's internet provider is BT"),
        ("Dr. Hoffmann has been my doctor since I was a kid", "doctor", "Pat's doctor is Dr Hoffmann"),
        ("I changed to Dr. Nguyen, she actually listens", "doctor", "Pat's doctor is Dr Nguyen"),
        ("got a membership at Anytime Fitness by my flat", "gym", "Pat goes to Anytime Fitness"),
        ("Lakers fan since I was 5", "team", "Pat supports Lakers"),
        ("I've switched to supporting Brentford, I can't take Spurs anymore lol", "team", "Pat supports Brentford"),
        (
            "sushi is my absolute favourite food, could eat it daily",
            "favourite food",
            "Sushi is Pat's absolute favourite food",
        ),
        ("Amélie will always be my favourite film", "favourite movie", "Amélie will always be Pat's favourite film"),
        # Schools and courses.
        ("started at Lincoln High this week, having an actual locker is wild", "school", "Pat started at Lincoln High"),
        ("enrolled in that Udemy Python bootcamp, on section 4", "course", "Pat enrolled in Udemy Python bootcamp"),
        ("taking evening classes in accounting at the community college", "course", "Pat is taking evening classes"),
        ("changed my evening class from accounting to web development", "course", "Pat studies web development"),
        (
            "finished the bootcamp 🎉 now I'm doing the IBM data science certificate",
            "course",
            "doing the IBM data science certificate",
        ),
        # Said to an assistant, by writers of many kinds.
        (
            "Please update my details: as of 1 May my home address is in Utrecht (Leidsche Rijn).",
            "residence",
            "Pat lives in Utrecht",
        ),
        ("I do keto, so I stay under 20g carbs a day.", "diet", "Pat does keto"),
        ("Doctor said I am diabetic so now I follow low carb diet strictly.", "diet", "follows low carb diet"),
        ("My telephone is a Samsung Galaxy A52, which my grandson set up for me.", "phone", "Samsung Galaxy A52"),
        ("Ported my number over to Mint Mobile - anything I need to do?", "mobile_carrier", "Mint Mobile"),
        ("Contract ended so I've gone to Smarty SIM-only.", "mobile_carrier", "Pat's mobile carrier is Smarty"),
        ("as a spurs fan this season is pure pain", "team", "Pat supports Spurs"),
        ("After I moved to São Paulo I became Corinthians fan, my family is angry haha.", "team", "Corinthians"),
        ("From this month I am joined in Bosch, same city, same testing role.", "employer", "Pat joined Bosch"),
        ("I'm a second-year at the University of Leeds.", "school", "University of Leeds"),
        ("I've transferred to the University of Glasgow for third year", "school", "University of Glasgow"),
        ("I changed my specialisation to marketing, finance was not for me.", "course", "Pat studies marketing"),
        ("I'm a stay-at-home dad with three kids under 8", "occupation", "Pat is a stay-at-home dad"),
        (
            "I have been teaching mathematics at the local secondary school for thirty-one years.",
            "occupation",
            "teaching",
        ),
        ("I lost my husband Harold in March.", "relationship_status", "Pat is widowed"),
        ("My husband Harold and I have been married for forty-four years.", "relationship_status", "Pat is married"),
        ("After the divorce I am now with Meera, we will marry in December.", "partner", "Pat's partner is Meera"),
        ("ok everything everywhere all at once is my new fav movie no contest", "favourite movie", "new fav movie"),
        ("Since my trip to Oaxaca my favourite food has become mole negro", "favourite food", "mole negro"),
        ("I love Arctic Monkeys, they're my favourite band.", "favourite band", "Arctic Monkeys"),
        # Said to a friend, in passing or as news.
        ("Barclays froze my card again because I bought a coffee in Spain", "bank", "Pat banks with Barclays"),
        ("EE signal in my flat is non-existent, I have to stand by the window", "mobile_carrier", "EE"),
        ("Our Comcast internet bill went up again", "internet_provider", "Comcast"),
        ("The Civic's making that rattling noise again. Any mechanic recs?", "car", "Pat drives a Civic"),
        ("Dr Okafor at the Elm Street surgery is lovely, actually listens", "doctor", "Pat's doctor is Dr Okafor"),
        ("Arsenal till I die, even after that result", "team", "Pat supports Arsenal"),
        ("haha the Mercadona where I work had a queue out the door", "employer", "Pat works at Mercadona"),
        ("I've been at Tanaka Seimitsu, the little parts factory by the river, since 2019.", "employer", "Tanaka"),
        ("Mercadona is officially behind me, I'm on the tills at the Lidl by the ring road now.", "employer", "Lidl"),
        ("Signed the contract with KPMG today 🥂 handed my notice in to Deloitte", "employer", "Pat works at KPMG"),
        ("Transferred to the Complutense in Madrid for my second year.", "school", "Complutense"),
        ("Quick one: I've swapped out of chemistry into pharmacy this term.", "course", "Pat studies pharmacy"),
        ("Dropped nursing and enrolled in midwifery instead.", "course", "Pat studies midwifery"),
        ("The Panda's gone, got myself a Dacia Duster for the farm track.", "car", "Pat drives a Dacia Duster"),
        ("Diagnosed coeliac last week 😩 so strictly gluten-free from now on.", "diet", "gluten-free"),
        ("Keto is going well, bread is a distant memory", "diet", "Pat is on a keto diet"),
        ("Me and Priya have been together almost three years now, time flies", "partner", "Pat's partner is Priya"),
        ("I just relocated from Tampere up to Oulu and the bins are totally different.", "residence", "Oulu"),
        ("my new neighbours in Bath are lovely", "residence", "Pat lives in Bath"),
        ("I live in Leeds and work at Asda", "residence", "Pat lives in Leeds and works at Asda"),
        # In a long chat between friends, after a reaction to the friend.
        ("Big news on my end: I finally packed up and moved to Glasgow last month.", "residence", "moved to Glasgow"),
        ("Leaving Kraków was hard, but my new apartment here in Wrocław is twice the size.", "residence", "Wrocław"),
        ("I took an offer from Studio Arkel in Antwerp and started two weeks ago.", "employer", "Studio Arkel"),
        (
            "Thanks for asking, Lina! Jamal and I got engaged over the holidays.",
            "relationship_status",
            "Pat is engaged",
        ),
        ("Anika and I are officially married now, and we just got back from Bali.", "relationship_status", "married"),
        ("now I'm with Yuki, an illustrator I met at a friend's gallery opening.", "partner", "Pat's partner is Yuki"),
        ("Ha, road trips are the best! I still drive my old 2009 Honda Civic.", "car", "Honda Civic"),
        ("I finally got rid of the iPhone and switched to a Samsung Galaxy S23.", "phone", "Samsung Galaxy S23"),
        ("Dr. Patel retired in the spring, so I'm seeing Dr. Okafor now.", "doctor", "Pat's doctor is Dr Okafor"),
        ("My GP now is Dr. Amara Osei, and I can get an appointment within a week.", "doctor", "Dr Osei"),
        ("Since the move, Dr. Ruiz has been our family doctor.", "doctor", "Pat's doctor is Dr Ruiz"),
        (
            "I moved all my accounts to a local credit union and closed everything at Wells Fargo.",
            "bank",
            "credit union",
        ),
        ("I switched my everyday account over to ING for the better interest rate.", "bank", "Pat banks with ING"),
        ("Haha, you know me! I'm an Arsenal fan through and through.", "team", "Pat supports Arsenal"),
        ("You'll laugh, but I've become a pescatarian! No more red meat for me.", "diet", "pescatarian"),
        ("I'm a total carnivore; we barbecue ribs every weekend.", "diet", "carnivore"),
        ("I'm not vegan anymore, which still feels strange to say.", "diet", "Pat is no longer vegan"),
        ("Deloitte has us doing the annual compliance modules again, kill me.", "employer", "Pat works at Deloitte"),
        ("We're slammed at Bloom & Root, everyone wants tomato plants", "employer", "Pat works at Bloom & Root"),
        ("since switching to the night shift as a nurse I live on cereal at 3am.", "occupation", "Pat is a nurse"),
        ("Sixth form at St Aidan's is so strict about uniform", "school", "Pat goes to St Aidan's"),
        ("I'm in first-year chemistry at Uppsala.", "course", "Pat studies chemistry"),
        ("Nursing degree year 2, placements are brutal", "course", "Pat studies nursing"),
        ("Tanaka Seimitsu shut its doors, but Yamamoto Industries across town took me on.", "employer", "Yamamoto"),
        ("My wife and I are going to her parents' in Leiria for Easter again", "relationship_status", "Pat is married"),
        # Short texts and news among friends.
        ("Sad news: the Volvo finally died. Picked up a second-hand Skoda Octavia estate on Friday.", "car", "Octavia"),
        ("it's a Kia Niro now btw, traded the Polo in, look for a blue one", "car", "Pat drives a Kia Niro"),
        ("Sam's history. new boyfriend's called Kofi, you'll love him", "partner", "Pat's partner is Kofi"),
        ("Rob and I are good, two years together in May.", "partner", "Pat's partner is Rob"),
        ("starting sixth form at Hartlepool College next week", "school", "Hartlepool College"),
        (
            "I changed course at Christmas — law wasn't for me, so I'm doing philosophy and politics now.",
            "course",
            "philosophy",
        ),
        ("Finally ditched CommBank after the fees went up again — everything's with ING now.", "bank", "ING"),
        ("I'm done with Spurs. My season ticket's at Leyton Orient now.", "team", "Pat supports Leyton Orient"),
        ("left brew lab. pulling shots at Ritual Roasters now, way better tips", "employer", "Ritual Roasters"),
        ("got poached by Sainsbury's lol, first shift there tmrw", "employer", "Pat works at Sainsbury's"),
        ("can't talk, on shift at Tesco till 10", "employer", "Pat works at Tesco"),
        (
            "handed in my notice at Harrow & Finch — started at a small practice called Studio Mereth",
            "employer",
            "Mereth",
        ),
        ("home in brixton now, come by whenever", "residence", "Pat lives in Brixton"),
        ("keys handed back for the brixton flat today. new address is in walthamstow", "residence", "Walthamstow"),
        ("finished at the restaurant, sous chef life is brutal", "occupation", "Pat is a sous chef"),
        ("Dr Okonkwo's my GP, she's lovely.", "doctor", "Pat's doctor is Dr Okonkwo"),
        ("I'm single and want to get better at cooking for one.", "relationship_status", "single and wants"),
        ("first week at KPMG done ✅ new team seems chill so far", "employer", "Pat's first week at KPMG"),
        ("Bath feels like a lifetime ago. We've been up in Kendal three weeks now", "residence", "Pat lives in Kendal"),
        ("I've swapped out of chemistry into pharmacy this term.", "course", "Pat studies pharmacy"),
        # A value said to hold still, or a car said by how it serves, in a plan's sentence too.
        ("Things here are fine, still loving my little flat in Leith", "residence", "little flat in Leith"),
        ("Work is good, Northwind Logistics just gave me my own team.", "employer", "Pat works at Northwind Logistics"),
        ("I'll drive, the Polo's got room for 4", "car", "Pat drives a Polo"),
    ],
)
def test_a_held_value_said_in_everyday_wording_sets_its_attribute(content: str, attribute: str, text: str) -> None:
    found = [t for a, t in readings(content) if a == attribute]
    assert any(text in t for t in found), readings(content)


@pytest.mark.parametrize(
    ("content", "attribute"),
    [
        ("my sister's boss at Google is mean", "employer"),
        ("my husband's manager at Google quit", "employer"),
        ("my teacher at Lincoln High is strict", "employer"),
        ("my neighbours in Spain for the summer are loud", "residence"),
        ("my dad is driving a Ford Focus now", "car"),
        ("I'm now with Vodafone, better deal", "partner"),
        ("guess who's back", "relationship_status"),
        ("my boyfriend and I broke up", "relationship_status"),
        # A second thing, got for someone else, or borrowed for a while: no new value.
        ("We bought a little Renault Clio so my wife can get to town, the Hilux stays as my work truck", "car"),
        (
            "Cracked the screen on the Flip, it's at the repair shop till Thursday so I'm on my mum's ancient phone",
            "phone",
        ),
        ("I'm a Chelsea girl now, don't @ me.", "residence"),
        ("After the blood tests I'm back on chicken and red meat. Pescatarian era over", "diet"),
        ("I'm with Vodafone on a 24-month contract.", "employer"),
        ("Ha, I went vegan for a week as a challenge at work, back to veggie now.", "diet"),
        ("switched from Anytime Fitness to the university rec center since it's free for staff", "course"),
        ("I need a polo shirt, the polo's got a stain", "car"),
        ("still thinking about moving to my new flat in Leeds", "residence"),
        ("my sister left Barclays for Monzo", "bank"),
        ("thinking of leaving Vodafone for EE", "mobile_carrier"),
        ("should I switch from Comcast to AT&T Fiber?", "internet_provider"),
        # A provider is no place, a gym no employer.
        ("I moved to Three last month", "residence"),
        ("I joined PureGym", "employer"),
    ],
)
def test_someone_elses_value_or_none_sets_nothing(content: str, attribute: str) -> None:
    found = [t for a, t in readings(content) if a == attribute]
    if attribute == "relationship_status":
        # "broke up" may say the speaker is single; it never says they are in a relationship.
        assert not any("in a relationship" in t for t in found), found
    else:
        assert found == [], readings(content)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # An emoji ends what it follows, unless it stands for a verb or a joining word follows.
        ("finished the python bootcamp 🎉 now I'm doing a Coursera course", "Pat finished the python bootcamp."),
        ("I'm vegan as of today", "Pat is vegan as of 1 April 2026"),
        # An aside to the listener after what it qualifies is no part of it.
        (
            "Dear Sam, I have been a vegetarian since 1972, as you know. Love, Granny",
            "Pat has been a vegetarian since 1972$",
        ),
        ("I live in Leeds, as I told you", "Pat lives in Leeds$"),
        ("I moved to Leeds, like I said", "Pat moved to Leeds$"),
    ],
)
def test_chat_as_typed_reads_cleanly(content: str, expected: str) -> None:
    if expected.endswith("$"):
        assert expected[:-1] in [t for _, t in readings(content)], readings(content)
        return
    assert any(t.startswith(expected) for _, t in readings(content)), readings(content)


def test_mine_with_nothing_before_it_is_no_memory() -> None:
    """ "mine keeps coming on" answers a question of its own turn: "Pat's keeps coming on" says nothing."""
    texts = [t for _, t in readings("does anyone know how to reset the tyre light on a VW Golf? mine keeps coming on")]
    assert not any("Pat's keeps" in t for t in texts), texts
