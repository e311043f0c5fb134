"""A labelled set of memory pairs: the same fact said twice (merge) and adjacent but different facts (keep apart).

The near-duplicate gate is tested on it (tests/memories/test_paraphrase.py) and measured on it (bench/retrieval.py).
"""

from __future__ import annotations

SAME = [
    ("User lives in Lyon", "The user lives in Lyon"),
    ("User lives in Lyon", "User lives in Lyon, France"),
    ("User is allergic to peanuts", "The user has a peanut allergy"),
    ("User is allergic to peanuts", "User is allergic to peanuts."),
    ("User works as a nurse", "The user works as a nurse"),
    ("User works as a nurse", "User is working as a nurse"),
    ("User prefers window seats", "The user prefers window seats on flights"),
    ("User likes jazz", "User likes jazz music"),
    ("User loves hiking in the mountains", "The user loves hiking in mountains"),
    ("User's favourite colour is blue", "The user's favorite color is blue"),
    ("User has two children", "The user has 2 children"),
    ("User drinks black coffee every morning", "Every morning the user drinks black coffee"),
    ("User is vegetarian", "The user is a vegetarian"),
    ("User speaks French and German", "User speaks German and French"),
    ("User's birthday is on 12 March", "The user's birthday is 12 March"),
    ("User plays the guitar", "The user plays guitar"),
    ("User owns a red bicycle", "The user owns a red bike"),
    ("User studies computer science", "The user is studying computer science"),
    ("User is afraid of spiders", "The user is scared of spiders"),
    ("User adopted a dog named Luna", "The user adopted a dog called Luna"),
]

DIFFERENT = [
    ("User lives in Lyon", "User used to live in Paris"),
    ("User lives in Lyon", "User lives in Paris"),
    ("User lives in Lyon", "User does not live in Lyon"),
    ("User is allergic to peanuts", "User is allergic to shellfish"),
    ("User is allergic to peanuts", "User is not allergic to peanuts"),
    ("User works as a nurse", "User used to work as a nurse"),
    ("User works as a nurse", "User works as a teacher"),
    ("User prefers window seats", "User prefers aisle seats"),
    ("User likes jazz", "User dislikes jazz"),
    ("User likes jazz", "User likes rock"),
    ("User has two children", "User has three children"),
    ("User has two children", "User has 3 children"),
    ("User drinks black coffee every morning", "User drinks green tea every morning"),
    ("User is vegetarian", "User is vegan"),
    ("User's birthday is on 12 March", "User's birthday is on 21 March"),
    ("User's sister lives in Berlin", "User's brother lives in Berlin"),
    ("User plays the guitar", "User plays the piano"),
    ("User owns a red bicycle", "User owns a blue bicycle"),
    ("User moved to Lisbon in 2019", "User moved to Lisbon in 2021"),
    ("User's favourite colour is blue", "User's favourite colour is green"),
    ("User works at Acme", "User worked at Acme"),
    ("User is married", "User is divorced"),
    ("User will visit Tokyo in May", "User visited Tokyo in May"),
    ("User adopted a dog named Luna", "User adopted a cat named Luna"),
]
