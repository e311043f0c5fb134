"""Labelled sentences for the offline strategy, written for these tests in the registers people chat in.

Each case is (register, what the person said, the memories a careful reader keeps from it). The
speaker is the session's person ("User"); every message is said on Wednesday 11 March 2026, so
relative dates resolve against that day.
"""

from __future__ import annotations

SAID_AT = "2026-03-11T10:00:00+00:00"

CASES: list[tuple[str, str, list[str]]] = [
    # --- plain statements: possessions, events, plans, preferences, relationships, diet and health
    (
        "plain",
        "I just got back from a trip with my family in my new Prius.",
        [
            "User has a new Prius",
            "User just got back from a trip with their family in their new Prius",
        ],
    ),
    ("plain", "I am vegetarian and allergic to peanuts", ["User is vegetarian", "User is allergic to peanuts"]),
    ("plain", "I live in Lyon and I love jazz.", ["User lives in Lyon", "User loves jazz"]),
    ("plain", "I moved to Lisbon last month and I'm loving it", ["User moved to Lisbon in February 2026"]),
    ("plain", "I'm a nurse at the children's hospital", ["User is a nurse at the children's hospital"]),
    ("plain", "I quit my job yesterday.", ["User quit their job on 10 March 2026"]),
    ("plain", "My favourite band is Radiohead", ["User's favourite band is Radiohead"]),
    (
        "plain",
        "I bought a used Honda Civic two weeks ago",
        [
            "User bought a used Honda Civic in the week of 23 February 2026",
        ],
    ),
    ("plain", "I've been vegan for three years", ["User has been vegan for three years"]),
    ("plain", "I consider myself an introvert", ["User considers themselves an introvert"]),
    ("plain", "I really love baking sourdough on Sundays", ["User really loves baking sourdough on Sundays"]),
    ("plain", "I can't stand cilantro", ["User can't stand cilantro"]),
    (
        "plain",
        "I'm lactose intolerant so no ice cream for me",
        # The consequence that denies is read apart: the fact stands without it.
        ["User is lactose intolerant"],
    ),
    (
        "plain",
        "I'm planning to visit my grandparents in Kerala next month",
        [
            "User is planning to visit their grandparents in Kerala in April 2026",
        ],
    ),
    ("plain", "I got engaged last weekend!!!", ["User got engaged on the weekend of 7 March 2026"]),
    (
        "plain",
        "My sister just had a baby girl last week!",
        [
            "User's sister just had a baby girl in the week of 2 March 2026",
        ],
    ),
    (
        "plain",
        "I was diagnosed with type 1 diabetes when I was 12",
        [
            "User was diagnosed with type 1 diabetes when they were 12",
        ],
    ),
    ("plain", "I got promoted to senior engineer yesterday", ["User got promoted to senior engineer on 10 March 2026"]),
    (
        "plain",
        "My daughter starts kindergarten in September",
        [
            "User's daughter starts kindergarten in September 2026",
        ],
    ),
    ("plain", "I grew up in a small village near Porto", ["User grew up in a small village near Porto"]),
    ("plain", "I'm 34 years old", ["User is 34 years old"]),
    ("plain", "I turned 40 last month", ["User turned 40 in February 2026"]),
    ("plain", "I recently got divorced", ["User recently got divorced"]),
    ("plain", "I'm originally from Nairobi", ["User is originally from Nairobi"]),
    ("plain", "My brother works at Microsoft", ["User's brother works at Microsoft"]),
    ("plain", "I ride my bike to work every day", ["User rides their bike to work every day"]),
    ("plain", "I don't eat pork", ["User doesn't eat pork"]),
    ("plain", "I now live in Paris", ["User now lives in Paris"]),
    (
        "plain",
        "I switched from an iPhone to a Pixel last month",
        [
            "User switched from an iPhone to a Pixel in February 2026",
        ],
    ),
    ("plain", "I love hiking, camping, and kayaking", ["User loves hiking, camping, and kayaking"]),
    ("plain", "I'm thinking about getting a tattoo", ["User is thinking about getting a tattoo"]),
    ("plain", "My mom is visiting us next weekend", ["User's mom is visiting them on the weekend of 14 March 2026"]),
    ("plain", "I'm training for a marathon in October", ["User is training for a marathon in October 2026"]),
    ("plain", "I used to smoke but I quit five years ago", ["User used to smoke but User quit in 2021"]),
    ("plain", "As a kid I wanted to be an astronaut", ["As a kid User wanted to be an astronaut"]),
    (
        "plain",
        "I started volunteering at the animal shelter on Saturdays.",
        [
            "User started volunteering at the animal shelter on Saturdays",
        ],
    ),
    (
        "plain",
        "We just bought our first house in Leeds!",
        ["User and others just bought their first house in Leeds", "User lives in Leeds"],
    ),
    (
        "plain",
        "Me and my husband are celebrating our 10th anniversary next week",
        [
            "User and their husband are celebrating their 10th anniversary in the week of 16 March 2026",
            "User is married",
        ],
    ),
    ("plain", "I've got two cats, Miso and Tofu", ["User has got two cats, Miso and Tofu"]),
    ("plain", "I don't have a car", ["User doesn't have a car"]),
    # --- chatty: fillers, greetings and thanks around the fact, dropped subjects
    (
        "chatty",
        "Hey! Good to see you. I just started a pottery class and it's so relaxing.",
        [
            "User just started a pottery class and it's so relaxing",
        ],
    ),
    ("chatty", "Oh btw, I'm allergic to penicillin, just so you know", ["User is allergic to penicillin"]),
    ("chatty", "Honestly I'm a total night owl", ["User is a total night owl"]),
    ("chatty", "Had a job interview this morning, fingers crossed", ["User had a job interview on 11 March 2026"]),
    ("chatty", "Been learning Japanese for about a year now", ["User has been learning Japanese for about a year now"]),
    ("chatty", "Finally got my drivers license today!!!", ["User finally got their drivers license on 11 March 2026"]),
    (
        "chatty",
        "Thanks! Started hitting the gym last week, it's going well.",
        [
            "User started hitting the gym in the week of 2 March 2026",
        ],
    ),
    ("chatty", "Haha yeah, I'm single and ready to mingle", ["User is single and ready to mingle"]),
    ("chatty", "I think I'm a pretty good cook tbh", ["User thinks they are a pretty good cook"]),
    ("chatty", "my name is Priya btw", ["User's name is Priya"]),
    ("chatty", "Call me Sam", ["User goes by Sam"]),
    (
        "chatty",
        "Wow, thanks! So I got a new job at Globex last week.",
        [
            "User got a new job at Globex in the week of 2 March 2026",
        ],
    ),
    # --- typos and lower case
    (
        "typos",
        "i live in toronto and i work for a small startup",
        [
            "User lives in Toronto",
            "User works for a small startup",
        ],
    ),
    ("typos", "im moving to porto in two months", ["User is moving to Porto around May 2026"]),
    (
        "typos",
        "ugh my lactop died again, gonna buy a new macbook this weekend",
        [
            "User's lactop died again",
            "User is going to buy a new macbook on the weekend of 14 March 2026",
        ],
    ),
    ("typos", "i graduated from nursing school in 2019", ["User graduated from nursing school in 2019"]),
    (
        "typos",
        "ive been feeling really burnt out at work lately",
        [
            "User has been feeling really burnt out at work lately",
        ],
    ),
    # --- emoji
    ("emoji", "omg guys i finally adopted a puppy!!! 🐶", ["User finally adopted a puppy"]),
    ("emoji", "Yesterday I ran my first half marathon 🏃‍♀️", ["On 10 March 2026 User ran their first half marathon"]),
    ("emoji", "Lost my phone at the concert last night 😭", ["User lost their phone at the concert on 10 March 2026"]),
    ("emoji", "I'm pregnant with our second child 😊", ["User is pregnant with their second child"]),
    ("emoji", "🎉 I passed my driving test! 🎉", ["User passed their driving test"]),
    # --- questions
    ("question", "Where do you live?", []),
    ("question", "Do you like hiking?", []),
    ("question", "Have you ever been to Japan?", []),
    ("question", "What should I cook tonight?", []),
    ("question", "I live in Lyon?", []),
    ("question", "Can you remind me what I said about my trip?", []),
    ("question", "Can you help me plan a weekend in Lisbon?", []),
    ("question", "Is it normal that I sleep 10 hours a night?", []),
    ("question", "What do you think of my new haircut?", []),
    ("question", "do you remember my sister's name", []),
    # --- hypotheticals, wishes, hedges
    ("hypothetical", "If I had more money I would buy a boat", []),
    ("hypothetical", "I wish I lived near the sea", []),
    ("hypothetical", "Maybe I'll move to Berlin someday", []),
    ("hypothetical", "Suppose I quit my job, what then?", []),
    ("hypothetical", "I would love to learn the piano", []),
    ("hypothetical", "I might be allergic to cats", []),
    ("hypothetical", "I'd like a refund please", []),
    ("hypothetical", "I could never live in a big city", []),
    ("hypothetical", "Imagine I'm a pirate captain sailing the seas", []),
    ("hypothetical", "I think it's going to rain tomorrow", []),
    ("hypothetical", "Let's say I live in Tokyo and I work at Sony.", []),
    # --- other people, reported speech, quotes
    ("third party", "My friend said she moved to Madrid", []),
    ("third party", "She told me she's pregnant", []),
    ("third party", "Tom loves football", []),
    ("third party", "My boss thinks I should apply for the promotion", []),
    ("third party", "He just bought a Tesla", []),
    ("third party", "My therapist says I should journal more", []),
    ("third party", "According to my doctor, I'm perfectly healthy", []),
    ("third party", '"I live in Paris," she said.', []),
    ("third party", "They got married last summer in Spain", []),
    # --- negations
    # Having none is a fact a first car bought changes (see "plain").
    ("negation", "I don't have a dishwasher", []),
    # A denial of what was true: the diet changed.
    ("plain", "I'm not vegetarian anymore", ["User is no longer vegetarian"]),
    ("negation", "I never went to college", []),
    ("negation", "I don't live in London anymore", []),
    ("negation", "I haven't been to the gym in months", []),
    ("negation", "lol I'm kidding, I don't actually have a yacht", []),
    ("negation", "No, I'm not moving anywhere", []),
    # --- sarcasm
    ("sarcasm", "Oh great, I just love being stuck in traffic for three hours", []),
    ("sarcasm", "Yeah right, I totally love Mondays", []),
    ("sarcasm", "I just love getting woken up at 5am by the neighbours 🙄", []),
    ("sarcasm", "I love my job so much, working weekends is the best /s", []),
    # --- small talk, reactions and things said to the listener
    ("small talk", "Wow, that's amazing!", []),
    ("small talk", "Thanks so much, that's really helpful", []),
    ("small talk", "Haha same", []),
    ("small talk", "Good morning!", []),
    ("small talk", "You'd be a great teacher", []),
    ("small talk", "Your garden looks amazing", []),
    ("small talk", "I love that idea", []),
    ("small talk", "Sounds good to me", []),
    ("small talk", "Congrats on the new job!", []),
    ("small talk", "I'm so happy for you", []),
    ("small talk", "I love you", []),
    ("small talk", "I like it", []),
    ("small talk", "I'll check it out", []),
    ("small talk", "I totally agree, that makes sense", []),
    ("small talk", "I'm glad we're on the same page", []),
    ("small talk", "Ok cool, got it. Talk soon!", []),
    ("small talk", "It's so important to take care of yourself", []),
    # --- requests to the assistant, and secrets
    ("request", "Write me a poem about my dog", []),
    ("request", "Remind me to call the dentist", []),
    ("secret", "My password is hunter2", []),
    ("secret", "my credit card number is 4111 1111 1111 1111", []),
]
