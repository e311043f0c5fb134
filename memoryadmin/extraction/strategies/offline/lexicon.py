"""Word lists the offline strategies share: function words, chat fillers, reactions and markers."""

from __future__ import annotations

import re

from memoryadmin.memories.search.attributes import FAVOURITE_KINDS


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that carry no content of their own; what is left of a clause without them is its substance.
STOPWORDS = word_set(
    """a an the and or but so if then than that this these those there here it its it's is are was were be been
    being am do does did doing done have has had having i i'm i've i'd i'll me my mine myself we we're we've we'll
    us our ours you you're your yours he she him her his they them their theirs to of in on at by for with from
    about into over after before up down out off again very really just also too not no yes yeah yep ok okay
    oh wow hey hi hello thanks thank please sure well like lol haha omg what when where why how who
    which some any all much many more most lot lots such can could will would should might may must shall get
    got getting go going gone make made thing things stuff kind sort bit way ways one ones something anything
    everything nothing someone anyone everyone even still only now today time times day days week weeks year
    years though although because cause since while as been doing feel feels felt think thought know knew
    guess love loved great good nice cool awesome amazing glad happy sorry totally definitely absolutely agree
    agrees understand understands appreciate appreciates relate relates imagine sounds""".lower()
)

# Opening words of a sentence that react or fill rather than tell: stripped before reading on.
INTERJECTIONS = (
    "hey there|hey|hi there|hi|hello there|hello|yo|howdy|greetings|good morning|good afternoon|good evening|"
    "morning|wow|woah|whoa|wowza|oh my god|oh my gosh|oh my|omg|oh no|oh|ooh|oooh|aw+|ah+|haha+|hahaha+|hehe+|lol|"
    "lmao|yay+|yeah|yea|yes+|yep|yup|nah|nope|no|ok|okay|kk|sure|well|so|um+|uh+|hmm+|honestly|anyway|anyways|"
    "btw|by the way|thanks so much|thanks a lot|thank you so much|thank you|thanks|thx|ty|cool|nice|awesome|great|"
    "amazing|sweet|congrats|congratulations|sorry|right|true|totally|absolutely|definitely|exactly|indeed|"
    "same here|same|me too|ha|ahh|phew|man|dude|bro|girl|guys|fair enough|of course|for sure|gotcha|got it|"
    "no worries|no problem|np|agreed|yikes|ugh|damn|dang|gosh|geez|jeez|alright|all right|fyi|actually|also|and|"
    "plus|but|just so you know|for the record|fwiw|as you know|as i said|like i said|as i mentioned|"
    "long time no see|long time no talk|long time no chat|good to see you|good to hear from you|nice to see you|"
    "great to see you|great to hear from you|ngl|lowkey|highkey|istg|tbh|ok so|okay so|quick update|big news|"
    "guess what|hear me out|ok hear me out"
)

# Whole sentences that only react, however they are worded around these.
REACTION_STARTS = (
    "that's|that is|that was|that sounds|sounds|it sounds|looks|it looks|so cool|so true|how cool|how nice|"
    "what a|what an|you're|you are|you've|you have|you'll|you will|you'd|you should|you must|you can|you did|"
    "your|keep it up|keep me posted|keep up|good luck|take care|have fun|enjoy|see you|talk soon|bye|"
    "let me know|let's|lets|here's|here is|check it out|check out|look at|take a look|glad to hear|"
    "sorry to hear|happy to hear|nice to hear|good to know|i know right|i hear you|i feel you|i get it|"
    # "I see", not "I see Dr Nowak for my diabetes", "I see a therapist named Rachel".
    "i see(?!\\s+(?:a|an|dr)\\b|\\s+(?-i:[A-Z]))|i bet|bet|i agree|i guess so|i think so|i hope so|i know|"
    "me neither|can't wait|cannot wait|"
    "i (?:totally |completely |really |definitely |fully |so )?(?:agree|understand|appreciate that)"
)

# Verbs that, ending a clause, make the next one someone else's words ("She said", "my mum told me").
REPORTING_VERBS = (
    r"said|says|say|told\s+\w+|tells\s+\w+|thinks|asked|asks|wrote|writes|replied|replies|claims|claimed|goes|went|"
    r"was\s+like|is\s+like|texted|messaged|yelled|shouted|whispered|added|insists|insisted"
)

# What a secret is called: never kept, whatever the wording, for secrets do not belong in long-term memory.
CONFIDENTIAL_WORDS = (
    r"password|passcode|passphrase|pin|pin\s+code|credit\s+card|card\s+number|cvv|cvc|ssn|social\s+security|"
    r"security\s+code|api\s+key"
)

# Relations whose facts are the speaker's own family and friends ("my sister lives in Paris").
RELATIONS = word_set(
    """wife husband partner spouse girlfriend boyfriend fiance fiancee fiancé fiancée son daughter kid kids child
    children baby babies mom mum mother dad father parents parent sister sisters brother brothers sibling siblings
    grandma grandmother grandpa grandfather grandparents aunt uncle cousin cousins niece nephew friend friends
    bestie roommate roommates boss coworker coworkers colleague colleagues neighbor neighbour neighbors neighbours
    family dog dogs cat cats puppy kitten pet pets teacher mentor students team band""".lower()
)

# Adjectives that open a subject-less sentence about the speaker's state ("Excited to share…").
STATE_ADJECTIVES = word_set(
    """excited tired bored interested thrilled stoked pumped scared worried stressed blessed obsessed amazed
    surprised pleased relieved exhausted overwhelmed swamped psyched delighted devastated disappointed frustrated
    inspired motivated determined honored honoured grateful thankful proud happy glad sad sorry busy ready
    allergic vegetarian vegan pescatarian coeliac celiac diabetic married single engaged divorced""".lower()
)

# Words that react, greet or fill and carry nothing to find again ("haha", "how's it going").
REACTION_WORDS = word_set(
    """haha hahaha hahahaha hehe lol lmao rofl omg omgg wow woah whoa yay yayy aww awww hmm hmmm ugh yikes nope yep
    yup thx congrats congratulations cheers bye goodbye hello hiya howdy morning evening night goodnight welcome
    how's what's where's who's that's there's here's let's it's i'm you're you've you'll he's she's they're
    we're isn't aren't wasn't don't doesn't didn't can't won't wouldn't couldn't shouldn't doing going hear
    heard glad wonderful fantastic incredible super totally exactly indeed true cute sweet dear buddy pal
    guys girl dude man bro sis wish best luck soon later talk chat catch same agree makes sense idea""".lower()
)

# Professions: "I'm a nurse", "I became a teacher".
PROFESSIONS = (
    "teacher|nurse|doctor|hygienist|potter|lifeguard|postman|postwoman|bricklayer|roofer|plasterer|decorator|joiner|physician|surgeon|dentist|lawyer|attorney|engineer|developer|programmer|designer|"
    "architect|accountant|banker|pilot|chef|cook|baker|waiter|waitress|barista|bartender|cashier|teller|manager|"
    "consultant|scientist|researcher|professor|lecturer|student|artist|painter|writer|author|journalist|"
    "photographer|musician|singer|actor|actress|dancer|coach|trainer|therapist|counselor|counsellor|"
    "psychologist|pharmacist|vet|veterinarian|mechanic|electrician|plumber|carpenter|farmer|firefighter|"
    "police officer|officer|soldier|social worker|librarian|secretary|receptionist|analyst|entrepreneur|"
    "freelancer|contractor|realtor|driver|paramedic|midwife|translator|editor|intern|volunteer|ceo|founder|"
    "principal|headteacher|head teacher|supervisor|director|team lead|lead|clerk|technician|assistant|"
    "administrator|specialist|coordinator|associate|partner|owner|executive|officer|instructor|tutor|caregiver|"
    "carer|nanny|cleaner|janitor|courier|tailor|hairdresser|stylist|butcher|fisherman|miner|welder|machinist|"
    "surveyor|inspector|auditor|broker|agent|recruiter|marketer|copywriter|animator|illustrator|producer|dj|"
    "dev|paralegal|solicitor|barrister|physio|physiotherapist|optometrist|radiographer|sonographer|dietitian|"
    "nutritionist|psychiatrist|sysadmin|tester|bookkeeper|postman|postwoman|hca|pharmacy technician|lab technician|"
    "data analyst|product manager|project manager|software engineer|web developer|ux designer|ux researcher|"
    "deputy head|deputy headteacher|sous chef|line cook|store manager|shift manager|sergeant|constable|lifeguard|"
    "ward sister|charge nurse|staff nurse|headmaster|headmistress|foreman"
)
# "the owner of an iPhone SE" owns a thing, and is no owner by trade (after a profession, in a lookahead).
OWNS_A_THING = (
    r"(?<=owner)\s+of\s+(?:a|an|the|my)\s+(?:new\s+|used\s+|shiny\s+|secondhand\s+)?"
    r"(?:iphone|ipad|phone|car|dog|cat|puppy|kitten|house|flat|bike|(?-i:[A-Z]))"
)
THINGS = {
    "car": word_set(
        "car cars truck pickup suv van minivan jeep sedan hatchback convertible prius civic corolla camry accord "
        "tesla toyota honda ford chevy chevrolet bmw audi mercedes volkswagen vw subaru mazda nissan hyundai kia "
        "volvo lexus porsche jaguar mini fiat peugeot renault skoda opel vauxhall citroen dacia hilux octavia astra "
        "fiesta creta outback forester tacoma maruti mahindra suzuki mitsubishi byd proton perodua cupra lancia saab "
        "cadillac buick rivian polestar geely lada isuzu acura infiniti nexon baleno dzire innova fortuner"
    ),
    "phone": word_set(
        "phone telephone smartphone iphone cellphone android pixel galaxy oneplus motorola moto xiaomi huawei samsung "
        "redmi honor oppo vivo realme tecno infinix doro nokia xperia fairphone"
    ),
    "computer": word_set(
        "laptop computer pc macbook desktop chromebook notebook thinkpad xps zenbook imac dell lenovo asus acer hp"
    ),
    "bicycle": word_set("bike bicycle e-bike ebike"),
    "motorbike": word_set("motorbike motorcycle scooter moped"),
    "home": word_set("house apartment flat condo home townhouse cottage"),
}
# Words that name a kind of thing, not a make or model: "my car" says nothing of which car.
GENERIC_THINGS = word_set(
    """car cars truck pickup suv van minivan sedan hatchback convertible phone smartphone cellphone laptop computer
    pc desktop notebook bike bicycle e-bike ebike motorbike motorcycle scooter moped house apartment flat condo
    home townhouse cottage mini"""
)
# Goods of the makes of phones and cars that are no phone and no car: "a Samsung TV", "my Tesla stock".
OTHER_GOODS = word_set(
    """tv tvs television fridge freezer fridge-freezer washer dryer washing dishwasher microwave oven hob vacuum hoover
    watch smartwatch tablet tab monitor soundbar speaker speakers headphones earbuds buds charger case cover printer
    camera console aircon stock stocks shares laptop notebook chromebook computer pc desktop lawnmower mower
    generator powerwall battery"""
)
OTHER_GOODS_AFTER = r"(?![\s\d]*\s(?:" + "|".join(sorted(OTHER_GOODS)) + r")\b)"
THING_OF = {word: attribute for attribute, words in THINGS.items() for word in words}
THING_WORDS = frozenset(THING_OF)
INSTRUMENTS = (
    "guitar|bass|piano|keyboard|keys|violin|viola|cello|double bass|drums|flute|clarinet|oboe|bassoon|saxophone|sax|"
    "trumpet|trombone|tuba|french horn|horn|harp|ukulele|banjo|mandolin|accordion|harmonica|organ|synth|"
    "synthesizer|recorder|tabla|harmonium|sitar|veena|mridangam|dhol|erhu|guzheng|koto|shamisen|bagpipes|djembe|"
    "cajon|marimba|xylophone|steel pan|kalimba|bouzouki|oud|bodhran|tin whistle|fiddle|euphonium|piccolo|percussion"
)
PETS = word_set(
    "dog dogs puppy puppies cat cats kitten kittens pet pets hamster hamsters rabbit rabbits bunny parrot parrots fish "
    "goldfish turtle turtles tortoise horse pony budgie budgies lovebird lovebirds cockatiel canary gecko lizard snake "
    "ferret axolotl beagle labrador poodle spaniel terrier retriever greyhound husky dachshund pug collie bulldog "
    "chihuahua corgi"
)

TOPICS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "travel",
        word_set(
            "trip trips travel traveled travelled traveling travelling vacation holiday holidays flight flew "
            "visited visit visiting beach camping camp hike hiking road abroad tour cruise backpacking"
        ),
    ),
    (
        "work",
        word_set(
            "job work working worked career office boss business company promotion promoted internship hired "
            "fired interview client clients project studio store shop startup colleague coworker salary"
        ),
    ),
    (
        "family",
        word_set(
            "family kids kid wife husband mom mum dad son daughter baby sister brother parents grandma grandpa "
            "children child aunt uncle cousin"
        ),
    ),
    (
        "health",
        word_set(
            "doctor hospital sick ill surgery therapy injury injured diagnosed medicine allergic allergy flu "
            "covid pain recovering pregnant fever asthma diabetes"
        ),
    ),
    (
        "education",
        word_set(
            "school college university class classes course degree study studying exam graduated graduation "
            "semester teacher edu education"
        ),
    ),
    ("pets", PETS),
    (
        "hobbies",
        word_set(
            "painting paint painted music guitar piano dance dancing reading book books game games gaming sport "
            "sports running yoga cooking baking photography art drawing singing writing knitting gardening "
            "swimming concert band movie movies"
        ),
    ),
    ("home", word_set("house apartment flat moved moving garden renovation neighborhood neighbourhood")),
    ("food", word_set("food restaurant recipe meal dinner lunch breakfast cooked baked eat eating")),
)

# "It's my favourite for birthdays", "my fav memory was…": no kind of thing a person has one favourite of.
# One attribute for one kind of favourite, however it is named ("favourite dish" is the favourite food): the names
# search reads a question's favourite by.
FAVOURITE_NAMES = FAVOURITE_KINDS
# "my favourite thing to eat": the favourite food.
FAVOURITE_THING = re.compile(r"\bfavou?rite\s+thing\s+to\s+(?P<verb>eat|drink)\b", re.IGNORECASE)
FAVOURITE_OF_VERB = {"eat": "food", "drink": "drink"}


def favourite_attribute(what: str, clause: str) -> str:
    """The attribute of a favourite named `what` in `clause` ("band", "dish" -> "favourite food"), or ""."""
    what = " ".join(what.lower().split())
    if what.split()[0] in NOT_A_FAVOURITE_KIND:
        thing = FAVOURITE_THING.search(clause)
        return f"favourite {FAVOURITE_OF_VERB[thing.group('verb').lower()]}" if thing else ""
    return f"favourite {FAVOURITE_NAMES.get(what, what)}"


NOT_A_FAVOURITE_KIND = word_set(
    "now these lately right again too ever still honestly "
    "for to of in on at and or thing things part parts memory memories moment moments time times one ones way "
    "bit kind type quote day days"
)

# People of the speaker's life who are not family ("my flatmate has gone keto"): their news is not the speaker's.
OTHER_PEOPLE = word_set(
    """flatmate flatmates housemate housemates mate mates buddy buddies pal pals bff landlord landlady manager
    doctor dentist therapist gp coach ex bf gf hubby sis bro grandson granddaughter stepdad stepmom stepmum
    fiance fiancee classmate classmates teammate teammates flatmate's in-laws inlaws in-law department colleagues
    president lads girls guys maid bridesmaid bridesmaids groomsman groomsmen"""
)

# Bands named in the plural, as sides are: "I'm a huge Beatles fan" is no team's. Only the best known; another
# band so named still reads as a side (a limit written in docs/extraction.md).
BANDS_IN_PLURAL = (
    r"(?:beatles|stones|killers|smiths|strokes|ramones|monkees|kinks|doors|pixies|pogues|cranberries|carpenters|"
    r"bangles|libertines|kooks|vaccines|darkness|hollies|supremes|temptations|jacksons|osmonds|beach\s+boys|"
    r"backstreet\s+boys|jonas\s+brothers|foo\s+fighters|arctic\s+monkeys|white\s+stripes|black\s+keys|"
    r"chainsmokers|weeknd|jam|specials|shadows|animals|zombies|byrds)"
)
