"""Reading a chat message: its sentences, their clauses, and which of them the speaker tells about themselves.

A message is split into sentences and a sentence into clauses (at ";", " - ", and at "and" / "but" / "so" / a comma
when the speaker starts again: "I live in Lyon and I work at Acme"). Each clause is then read for what it is:

- said about the speaker (`self`): it has "I" / "we" as a subject, or starts with "my" / "our", or dropped its
  subject as chat does ("Just got back from a trip"), or has the speaker as its object ("Dancing makes me happy");
- context (`other`): a plain statement that is not about the speaker ("It's a part-time position"), kept only beside
  something said about themselves;
- nothing to keep: greetings, thanks and reactions ("Wow, that's great!"), questions, anything addressed to the
  listener ("You'd be a great counselor"), what someone else said ("She said she lives in Madrid", quotes), and
  clauses that are imagined, wished, hedged, negated or sarcastic.

The reading is by rule, in one pass over short strings: no parser, no model.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from memoryadmin.extraction.strategies.grammar import is_past_form, normalise_spelling
from memoryadmin.extraction.strategies.offline.addressed import (
    asks_if,
    kept_as_stated,
    together,
    without_label,
    without_vocative,
)
from memoryadmin.extraction.strategies.offline.lexicon import (
    CONFIDENTIAL_WORDS,
    INTERJECTIONS,
    REACTION_STARTS,
    REPORTING_VERBS,
    STATE_ADJECTIVES,
    STOPWORDS,
    word_set,
)

# The longest clause either offline strategy reads; a longer one is pasted text, not chat.
MAX_CLAUSE_CHARS = 400

# Typographic quotes read as plain ones; the rules strategy reads these too, but leaves "`" alone.
CURLY_QUOTES = {"’": "'", "‘": "'", "“": '"', "”": '"', "´": "'"}
_QUOTES = str.maketrans({**CURLY_QUOTES, "`": "'"})
_URL = re.compile(r"https?://\S+|www\.\S+", re.IGNORECASE)
# Emoji, pictographs and other symbols: they decorate a sentence and never carry its facts.
_SYMBOLS = re.compile(
    "[\U0001f000-\U0001faff\U00002600-\U000027bf\U0001f900-\U0001f9ff\u2b00-\u2bff\ufe0f\u200d\u2190-\u21ff"
    "\u2300-\u23ff\u25a0-\u25ff]+"
)
# The same typed as letters and signs (":)", ":-D", ";p", "<3", "xD", "^^"), standing alone between spaces.
_EMOTICON = re.compile(
    r"(?<!\S)(?:[:;=][-'o^]?[()\[\]DPpOo/\\|*3$@]+|[:;=]'[-]?[()]|<3+|</3|\^_?\^|[xX]D+|T_T|-_-|[oO]_[oO])(?!\S)"
)
# What an emoji ends: the sentence, when a word follows that does not go on with it ("still rocking my old Nokia 😂
# people think I'm a spy", "done ✅ new team"); not an emoji said as a verb ("I ❤️ pizza") or before a joining word.
_SENTENCE_AFTER = re.compile(r"\s*(?!(?:and|or|to|of|with|for|in|at|on|from|by)\b)[A-Za-z]")
_VERB_BEFORE = re.compile(r"(?:^|\s)(?:i|we|you|they)\s*$", re.IGNORECASE)
_SARCASM_EMOJI = re.compile("[\U0001f644\U0001f612\U0001f611\U0001f60f]")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?…])[\"')\]]*\s+|\s*\n+\s*")
# The same for a text of one line, where the second way never matches: a third of the cost.
_SENTENCE_BREAK_IN_LINE = re.compile(r"(?<=[.!?…])[\"')\]]*\s+")
# Words whose full stop does not end a sentence ("Dr. Lee", "Main Rd."); the rules strategy splits with these too.
ABBREVIATIONS = word_set("st dr mr mrs ms prof jr sr mt ft e.g i.e etc vs inc ltd co corp approx dept univ ave rd blvd")
_CLAUSE_BREAK = re.compile(
    r"\s*;\s*|\s+[-–—]+\s+|\s*\.\.\.+\s*|,\s+(?=(?:it's|it\s+is|it\s+was|that's|which\s+is)\b)|,\s+so\s+(?!(?:much|many|far|long|good|glad)\b)|(?<!\bme),?\s+(?:and|but|so|plus|also|then|while|whereas|though|although)\s+"
    # Not a subject of two: "my husband and I are moving".
    r"(?!i\s+(?:are|were)\b)(?=(?:now\s+|then\s+)?(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|our)\b)|[,:]\s+(?=(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|our)\b)|"
    # A subject-less clause after a comma: "my laptop died, gonna buy a new one".
    r",\s+(?=(?:gonna|going\s+to|planning\s+to|thinking\s+of|hoping\s+to|trying\s+(?:not\s+)?to|tryna|"
    r"never\s+thought|didn't\s+think|did\s+not\s+think)\b)|"
    # What the speaker asks of the listener after a fact: "I'm vegan so don't suggest honey", "I drive a Civic so
    # nothing fancy", "my bank is Chase, if you're helping with the budget".
    r"\s+so\s+(?=(?:nothing|don't|dont|do\s+not|please|pls|plz|any|assume|go\s+easy|keep|avoid|"
    r"bear|skip)\b)|"
    # A consequence that denies or asks: "my husband Gareth is a sheep farmer so lambing season means i never
    # see him", "my partner Jordan hates cilantro so no recipes with it please".
    r"\s+so\s+(?!(?:much|many|far|long|good|glad|not)\b)(?=[^,.;!?]*\b(?:no|not|never|nothing|don't|dont|"
    r"can't|cant|won't|wont|isn't|please|pls)\b)|,?\s+if\s+(?=(?:you|you're|youre|u|that|it|it's|its|needed|relevant|possible|anyone)\b)|"
    # "I'm vegetarian and allergic to peanuts" states two facts; each may be updated on its own.
    r",?\s+and\s+(?=(?:allergic|vegetarian|vegan|pescatarian|married|single|engaged|divorced)\b)",
    re.IGNORECASE,
)
_REPORTING_TAIL = re.compile(
    r"(?<!\bi )\b(?:" + REPORTING_VERBS + r"|according\s+to\s+(?:(?:my|his|her|their|the|our)\s+)?\w+)\s*[,:]?\s*$",
    re.IGNORECASE,
)
_OPENING_FIRST_WORDS = frozenset(alternative.split()[0] for alternative in INTERJECTIONS.split("|"))
# Interjections spelt with repeated letters ("hahaha", "ummm", "yesss").
_OPENING_PREFIXES = ("ha", "he", "aw", "ah", "um", "uh", "hm", "ye", "ya", "oo")
_LEADING = re.compile(r"^(?:(?:" + INTERJECTIONS + r")\b[\s,!.:;~-]*)+", re.IGNORECASE)
# A name or two after an interjection, then punctuation: "Hey Mel!", "Thanks, Gina!".
_VOCATIVE = re.compile(r"^(?:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s*[,!.]+\s*")
# A statement, then a question handed to the listener after a dash, a semicolon or a comma ("who??": forgotten).
_BEFORE_QUESTION = re.compile(
    r"^(.*?\w.*?)(?:\s+[-–—]+\s+|\s*;\s*|,\s+)(?:(?:and\s+)?(?:how|what)\s+about\s+you|and\s+you|wbu|hbu|you|"
    r"(?:[\w'-]+\s+){1,3}who\W*$|"
    r"(?:how|what|where|when|why|who|do|did|does|have|has|are|is|were|was|can|could|would|will|should)(?:'s|'re)?\s+\w"
    r"(?:(?!\s[-–—]+\s)[^;])*)\W*$",
    re.IGNORECASE,
)
# What parts a statement from the question after it in both patterns (`_BEFORE_QUESTION`'s separators).
_QUESTION_PARTINGS = (",", ";", "-", "–", "—")
# "I'm single, any tips for a first date?": a statement about the speaker, then what they ask.
_STATEMENT_THEN_ASK = re.compile(
    r"^((?:i|i'm|i've|we|we're|we've|my|our)\b[^,?]*[^\s,?])\s*,\s+[^,?]+\?\W*$", re.IGNORECASE
)
_JOINING_WORD = re.compile(r"[a-z]+", re.IGNORECASE)
_REACTION = re.compile(r"^(?:" + REACTION_STARTS + r")\b", re.IGNORECASE)
# A question without its question mark: a question word, or an auxiliary before its subject ("do you…").
_QUESTION_START = re.compile(
    r"^(?:what|where|why|how|who|whom|whose|which|anything|ever|(?:do|does|did|is|are|am|was|were|can|could|"
    r"would|will|should|shall|may|might|have|has|had|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|"
    r"shouldn't|couldn't|can't)\s+(?:you|u|he|she|they|we|it|i|there|your|anyone|someone)|"
    # "quick question about my order", "one more thing about my account": what comes is a question.
    r"(?:just\s+)?(?:a\s+|one\s+)?(?:quick|small|little|short|more|last)?\s*(?:question|q|query|thing)\s+"
    r"(?:about|on|re|regarding|for)|(?:one|another|two|a\s+few)\s+more\s+(?:things?|questions?)\b)\b",
    re.IGNORECASE,
)
_SELF_SUBJECTS = word_set("i i'm i've i'd i'll we we're we've we'd we'll")
_SELF_START = re.compile(
    r"^(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|we'll|my|our|me\s+and|call\s+me|you\s+can\s+call\s+me)\b",
    re.IGNORECASE,
)
# Someone else's word for it ("My boss thinks…", "According to my doctor…"): not the speaker's statement.
_REPORTED = re.compile(
    r"^(?:according\s+to\b|(?:my|our)\s+(?:[a-z-]+\s+){1,2}?(?:said|says|say|told|tells|thinks|thought|"
    r"believes|reckons|claims|claimed|insists|asked|wrote|texted|mentioned)\b)",
    re.IGNORECASE,
)
# A request to the assistant ("Write me a poem about my dog"), not news about the speaker.
_FEELING = word_set("love hate miss adore enjoy like need want")
_IMPERATIVE = word_set(
    "write tell give show help make find send remind list explain summarize summarise create draft plan book "
    "translate check search suggest recommend generate compose calculate describe compare set text email "
    "please let keep take teach fix draw add update schedule"
)
# Never kept: secrets, and a bank account's numbers (not which bank it is with: "closed my Access Bank account").
_SECRETS = re.compile(
    r"\b(?:"
    + CONFIDENTIAL_WORDS
    + r"|access\s+token|bank\s+account(?=\s*(?:numbers?\b|no\b|details\b|#|:|\d|is\s+\d))|"
    r"account\s+number|iban)\b",
    re.IGNORECASE,
)
# One of these is in the name of every secret `_SECRETS` knows (lowercase): a text without any names none.
SECRET_STEMS = ("pass", "pin", "card", "cvv", "cvc", "ssn", "secur", "api", "access", "bank", "account", "iban")
# Fillers that trail a clause and would otherwise read as part of it ("…, just so you know", "… lol").
_TRAILING_FILLER = re.compile(
    r"(?:[\s,]+(?:just\s+so\s+you\s+know|you\s+know|btw|tbh|imo|imho|lol|lmao|haha+|hehe+|fyi|fingers\s+crossed|"
    r"wish\s+me\s+luck|can\s+you\s+believe\s+it|don't\s+judge\s+me|trust\s+me|believe\s+me|go\s+figure|"
    r"i\s+guess|i\s+think|right|ok|okay|though|anyway|anyways|for\s+real|no\s+joke|jk))+\s*[.!]*$",
    re.IGNORECASE,
)
# "You can reach me at ana@example.com" is the speaker's email address.
_REACH_ME = re.compile(r"\b(?:you\s+can\s+)?(?:reach|email|contact)\s+me\s+at\s+(?=\S+@)", re.IGNORECASE)
# "You can reach me on 07700 900123", "text me at +61 412 345 678": the speaker's number, said to the listener.
_CALL_ME = re.compile(
    r"\b(?:you\s+can\s+)?(?:reach|call|text|ring|whatsapp|message)\s+me\s+(?:at|on)\s+(?=\+?\(?\d[\d\s().-]{5,})",
    re.IGNORECASE,
)
_SELF_OBJECTS = word_set("me my myself mine us our ours ourselves")
_POSSESSIVES = word_set("my our mine ours")
_IT_VERBS = word_set("gives makes helps keeps reminds means feels looks sounds seems brings lets takes shows")
_GENERAL_CAN = re.compile(r"^(?:we|you|one|people|everyone)\s+(?:all\s+)?can\b", re.IGNORECASE)
_LISTENER_WORDS = word_set("you you're you've you'll you'd your yours yourself ya y'all")
_OTHER_SUBJECT = re.compile(
    r"^(?:he|she|they|he's|she's|they're|his|her|their|it|it's|this|that|these|those|there|people|everyone|"
    r"someone|somebody|nobody)\b",
    re.IGNORECASE,
)
# Imagined, wished, planned-if, pretended, able or owed: not something that is so.
_HYPOTHETICAL_WORDS = word_set(
    "if unless whether would wouldn't could couldn't might maybe perhaps suppose supposing imagine imagining "
    "pretend pretending hypothetically wish wished wishing someday dreaming assume assuming roleplay role-play "
    "should shouldn't i'd we'd probably possibly dreamt dreamed nightmare"
)
_HYPOTHETICAL_PHRASES = (
    *("one day", "dream of", "had a dream", "in my dream", "let's say", "lets say", "what if", "ought to"),
    *("kinda want", "in this story", "in my story", "role play"),
)
_HEDGE = re.compile(
    # "I think it'll rain": a guess. "I think I'm a good cook" is an opinion about themselves: kept.
    r"^(?:(?:i|we)\s+(?:\w+\s+)?(?:think|guess|suppose|reckon|believe|assume|doubt|wonder|bet|hope)\b"
    r"(?!\s+(?:that\s+)?(?:i'm|i\s+am|i've|i\s+have)\s+(?:a|an|really|pretty|quite|very|so|too|kind|not)\b)|"
    # "I'm sure it'll be fun", "I'm so glad we're on the same page": a belief or a reaction, unless the
    # speaker goes on about themselves ("I'm glad I went").
    r"(?:i'm|i\s+am|we're|we\s+are)\s+(?:so\s+|really\s+|just\s+|pretty\s+|totally\s+)?"
    r"(?:sure|glad|certain|confident|positive|convinced|thrilled|stoked|happy|excited)\s+(?:that\s+)?"
    r"(?!i\b|i'm\b|i've\b|i'll\b|to\b|about\b|for\b|with\b|of\b|and\b|but\b|,))",
    re.IGNORECASE,
)
_NEGATION_WORDS = word_set("not never nobody nothing nowhere neither nor hardly barely")
# Not an idiom of certainty: "my new fav movie no contest", "best pizza in town no doubt", "no cap".
_NO_THING = re.compile(
    r"\bno\s+(?!problem|worries|contest|doubt|question|joke|lie|cap|kidding|exaggeration)\w+", re.IGNORECASE
)
_SARCASM = re.compile(
    r"(?:/s\b|\byeah,?\s+right\b|\boh,?\s+(?:great|joy|fantastic|wonderful|perfect|lovely|brilliant)\b|"
    r"\bjust\s+(?:great|perfect|wonderful|fantastic|what\s+i\s+needed)\b|\bwhat\s+fun\b|\bso\s+much\s+fun\s+lol\b|"
    r"\b(?:love|adore|enjoy)s?\s+(?:being|getting)\s+"
    r"(?:stuck|ignored|woken|yelled|sick|rained|dumped|lied|cut\s+off|stood\s+up)|\bthanks\s+a\s+lot\b.*\bfor\s+nothing\b|"
    r"\bnot!\s*$|\bsure,?\s+because\b)",
    re.IGNORECASE,
)
# Sarcasm is looked for only in a sentence that holds one of these.
_SARCASM_HINTS = ("/s", "right", "oh", "just", "fun", "when", "being", "getting", "nothing", "not!", "sure")
# A first word that, opening a clause, is an adverb of the speaker's clause rather than its subject.
_OPENING_ADVERBS = word_set("just finally also recently actually still totally really even already only now")
_GERUND_VERBS = word_set(
    "is was makes made helps helped has had gives gave keeps kept brings brought feels felt means meant "
    "reminds reminded lets takes took gets got can will"
)
# A gerund that is the subject has its verb after it ("Winning a championship is my goal").
_FINITE_AFTER_GERUND = re.compile(
    r"^(?:[\w',-]+\s+){0,12}?(?:is|was|are|were|'s|must|can|will|makes|made|gives|gave|helps|helped|brings|brought|"
    r"keeps|kept|means|takes|took|feels|sure\s+is|really\s+is|has|have|pays|lets)\b"
)
# "It's great to…", "That's so cool how…": an opinion about something, not news about the speaker.
_EVALUATION = re.compile(
    r"^(?:it's|it\s+is|it\s+was|that's|that\s+is|that\s+was|this\s+is|what\s+a|so|how)\s+(?:\w+\s+){0,2}?"
    r"(?:great|good|nice|cool|amazing|awesome|incredible|important|crucial|essential|key|vital|wonderful|"
    r"fantastic|inspiring|sweet|sad|hard|tough|rough|crazy|wild|true|fun|interesting|beautiful|lovely|"
    r"heartwarming|rewarding|amazing|okay|ok|fine|weird|funny|scary|exciting|special|worth)\b"
)
_ING_ADJECTIVES = word_set(
    "exciting amazing interesting inspiring encouraging exhausting surprising refreshing relaxing rewarding "
    "satisfying fascinating frustrating annoying boring amusing charming stunning touching moving heartwarming "
    "overwhelming thrilling terrifying depressing disappointing embarrassing promising"
)
_MOVING_ON = word_set("to into out in back home house abroad away over up down")
_IT_AFTER_BEEN = word_set(
    "hectic crazy wild a an ages forever tough rough nuts insane quiet slow long so such pretty quite super kinda"
)
_PAST_WORDS = word_set("yesterday ago earlier")
_PAST_PHRASES = (
    "last night",
    "last week",
    "last month",
    "last year",
    "back in",
    "this past",
    "last mon",
    "last tue",
    "last wed",
    "last thu",
    "last fri",
    "last sat",
    "last sun",
)
_TIME_HINTS = word_set("tomorrow tonight today next")
_TIME_PHRASES = (
    "this week",
    "this weekend",
    "this month",
    "this year",
    "this summer",
    "this morning",
    "this afternoon",
    "this evening",
)
_TOKENS = re.compile(r"[a-z][a-z'-]*")


@dataclass(frozen=True)
class Clause:
    """One clause of a message, cleaned of fillers, with what kind of statement it is."""

    text: str
    # The clause's lower-case words, for the checks below.
    words: frozenset[str]
    # self: about the speaker, with a subject; dropped: about the speaker, subject left out;
    # other: a plain statement about something else (context at most); opinion: an evaluation
    # of something ("It's great to…"), never kept.
    mode: str
    sentence: int
    past: bool
    # Its place in the sentence, and the word that joined it to the clause before ("but", "and", ",").
    position: int = 0
    joiner: str = ""


# An aside to the listener after what it qualifies: "I've been vegetarian since 1972, as you know." (what is left of
# the clause would end "…, as").
_ASIDE = re.compile(
    r",?\s+(?:(?:just\s+)?so\s+(?:you|u)\s+know|as\s+(?:you|u)\s+(?:know|can\s+imagine|may\s+remember|remember)|as\s+i\s+(?:said|told\s+you|"
    r"mentioned|mentioned\s+before)|like\s+i\s+(?:said|told\s+you|mentioned)|(?:you|u)\s+know)(?=\s*(?:[.!?,;]|$))",
    re.IGNORECASE,
)


def clean_message(content: str) -> tuple[str, bool]:
    """The text to read (quotes straightened, links, emoji and emoticons gone) and whether it sounds sarcastic."""
    # The quotes straightened are all outside ASCII but the backtick.
    text = content if content.isascii() and "`" not in content else content.translate(_QUOTES)
    sarcastic_emoji = False
    if not text.isascii():
        sarcastic_emoji = bool(_SARCASM_EMOJI.search(text))
        # An emoji before a word ends a sentence ("Inspiring 💪 I emailed…").
        text = _SYMBOLS.sub(
            lambda m: (
                "\n" if _SENTENCE_AFTER.match(text, m.end()) and not _VERB_BEFORE.search(text, 0, m.start()) else " "
            ),
            text,
        )
    if "http" in text or "www." in text:
        text = _URL.sub("", text)
    if " know" in text or " told" in text or " said" in text or " mention" in text:
        text = _ASIDE.sub("", text)
    text = _EMOTICON.sub("\n", text)  # an emoticon closes what it follows
    if "\n" not in text:
        return " ".join(text.split()), sarcastic_emoji
    # A line break ends a sentence ("I moved to Berlin⏎My new job starts monday"): kept, spaces collapsed.
    return "\n".join(line for line in (" ".join(line.split()) for line in text.split("\n")) if line), sarcastic_emoji


def sentences(text: str) -> list[str]:
    splitter = _SENTENCE_BREAK if "\n" in text else _SENTENCE_BREAK_IN_LINE
    pieces = [piece.strip() for piece in splitter.split(text) if piece and piece.strip()]
    merged: list[str] = []
    for piece in pieces:
        if merged and _ends_with_abbreviation(merged[-1]):
            merged[-1] = f"{merged[-1]} {piece}"
        else:
            merged.append(piece)
    return merged


def _ends_with_abbreviation(sentence: str) -> bool:
    if not sentence.endswith("."):
        return False
    last = sentence.rsplit(None, 1)[-1].rstrip(".").lower()
    return last in ABBREVIATIONS or (len(last) == 1 and last.isalpha() and last != "i")


def strip_opening(text: str) -> str:
    """Drop greetings, interjections and a name addressed ("Hey Mel! Wow, ..."), however many."""
    first = text[:12].split(None, 1)[0].lower().strip(",.!:;~-") if text.strip() else ""
    if first not in _OPENING_FIRST_WORDS and not first.startswith(_OPENING_PREFIXES) and text[:1].isalpha():
        return text
    while True:
        stripped = _LEADING.sub("", text, count=1)
        stripped = _VOCATIVE.sub("", stripped, count=1) if stripped != text else stripped
        stripped = stripped.lstrip(" ,.!:;~-")
        if stripped == text:
            return text
        text = stripped


def content_words(text: str, name: str = "") -> list[str]:
    """The words of `text` that carry content: not function words, fillers, or the speaker's name."""
    skip = name.lower()
    return [w for w in _TOKENS.findall(text.lower()) if len(w) > 2 and w not in STOPWORDS and w != skip]


def _speaks_of_time(low: str, words: frozenset[str], phrases: tuple[str, ...], hints: frozenset[str]) -> bool:
    return bool(words & hints) or any(phrase in low for phrase in phrases)


def _mode(clause: str, low: str, tokens: frozenset[str]) -> str:
    if _SELF_START.match(low):
        return "self"
    if _EVALUATION.match(low):
        return "opinion"
    words = low.split()
    first = words[0] if words else ""
    index = 0
    while first in _OPENING_ADVERBS and index + 1 < len(words):
        index += 1
        first = words[index]
    second = words[index + 1] if index + 1 < len(words) else ""
    if first == "been":
        return "other" if second in _IT_AFTER_BEEN else "dropped"
    if first in ("going", "gonna") and second in ("be", "to") and (words[index + 2 : index + 3] or [""])[0] == "be":
        return "other"
    if first in _ING_ADJECTIVES and not (first == "moving" and second in _MOVING_ON):
        return "opinion"  # "Exciting to see what's next", "Moving to see them"; not "Moving to Berlin next month"
    if (first.endswith("ing") and len(first) > 4) or first == "being":
        # "Dancing makes me happy" opens with its subject; "Heading to the beach with my kids" drops the
        # speaker's. A bare "Working together" could be either: left alone.
        if _FINITE_AFTER_GERUND.search(" ".join(words[index + 1 :])):
            return "opinion"  # "Taking care of yourself is so important", "Dancing makes me happy"
        if (
            tokens & _SELF_OBJECTS
            or _speaks_of_time(low, tokens, _PAST_PHRASES, _PAST_WORDS)
            or _speaks_of_time(low, tokens, _TIME_PHRASES, _TIME_HINTS)
        ):
            return "dropped"
        return "other"
    if first in STATE_ADJECTIVES and second in ("era", "phase", "days", "chapter", "life", "streak", "journey"):
        return "other"  # "Pescatarian era over": the time of it, not the speaker as it
    if first in ("going", "gonna") or first in STATE_ADJECTIVES:
        return "dropped"
    if first in ("can't", "cannot") and second in ("eat", "have", "drink", "stand", "tolerate"):
        return "dropped"  # "can't eat gluten", "can't stand jazz"
    if first in _FEELING and second in ("my", "our"):
        return "dropped"  # "love my new job", "miss my family": the speaker's own, not an order
    if first in _IMPERATIVE:
        return "other"
    if is_past_form(first) and first not in ("was", "were", "did") and second not in ("by", "with"):
        return "dropped"
    if _GENERAL_CAN.match(low):
        return "opinion"  # "We can all make a difference"
    if first in _IT_VERBS:
        return "other"  # "Gives me a visual of my progress": its subject is "it"
    if _OTHER_SUBJECT.match(low):
        # "It's why I love it", "They're my rock": about something else, however it touches the speaker;
        # kept when it is about the speaker's own things ("This has been great for my health").
        return "self" if tokens & _POSSESSIVES and not tokens & _SELF_SUBJECTS else "other"
    # A subject further in ("Last week I volunteered", "Growing up, I saw…", "…is that we had to…").
    if any(word.strip(",.!") in _SELF_SUBJECTS for word in words[:12]):
        return "self"
    # "This has been great for my mental health", "The photo is from near my hometown": the speaker's own
    # things. "It reminded me of…", "They help me…" only touch the speaker: not about them.
    if tokens & _POSSESSIVES:
        return "self"
    return "other"


def read_clauses(content: str) -> Iterator[Clause]:
    """The clauses of a message worth reading further, in order. Questions, reactions, what is addressed to
    the listener, what others said and what is quoted never come out."""
    text, sarcastic_emoji = clean_message(content)
    if not text:
        return
    text = normalise_spelling(text)
    if "@" in text:
        text = _REACH_ME.sub("my email is ", text)
    if " me " in text:
        text = _CALL_ME.sub("my number is ", text)
    for index, raw in enumerate(sentences(text)):
        sentence = raw.strip()
        sentence = kept_as_stated(sentence, strip_opening(sentence))
        if sentence.rstrip("\"')").endswith("?"):
            # "Got married last week - how about you?": the statement before the question still counts.
            # A longer "sentence" is no statement with a question after it, and reading it costs its square.
            # Both patterns part the two at a comma, a semicolon or a dash: without one there is no statement.
            parted = len(sentence) <= MAX_CLAUSE_CHARS and any(mark in sentence for mark in _QUESTION_PARTINGS)
            statement = (_BEFORE_QUESTION.match(sentence) or _STATEMENT_THEN_ASK.match(sentence)) if parted else None
            if statement is None:
                continue
            sentence = statement.group(1)
        low_sentence = sentence.lower()
        if sarcastic_emoji or (any(h in low_sentence for h in _SARCASM_HINTS) and _SARCASM.search(sentence)):
            continue
        sentence = together(strip_opening(sentence))
        if not sentence or _REACTION.match(sentence):
            continue
        reported = False
        start = 0
        joiner = ""
        pieces: list[tuple[str, bool, str]] = []
        for match in _CLAUSE_BREAK.finditer(sentence):
            piece = sentence[start : match.start()]
            pieces.append((piece, reported, joiner))
            reported = bool(_REPORTING_TAIL.search((piece + match.group(0))[-40:]) or asks_if(piece))
            word = _JOINING_WORD.search(match.group(0))
            comma = ", " if "," in match.group(0) else ""
            joiner = comma + word.group(0).lower() if word else ","
            start = match.end()
        pieces.append((sentence[start:], reported, joiner))
        past = _speaks_of_time(low_sentence, frozenset(_TOKENS.findall(low_sentence)), _PAST_PHRASES, _PAST_WORDS)
        for position, (piece, was_reported, joined_by) in enumerate(pieces):
            clause = without_vocative(strip_opening(without_label(piece.strip())))
            clause = _TRAILING_FILLER.sub("", clause).strip(" ,;:-").rstrip(".!…").strip()
            if not clause or was_reported or len(clause) > MAX_CLAUSE_CHARS or clause[0] in "\"'":
                continue
            if holds_secret(clause) or any(kind.match(clause) for kind in (_QUESTION_START, _REACTION, _REPORTED)):
                continue
            low = clause.lower()
            tokens = frozenset(_TOKENS.findall(low))
            mode = _mode(clause, low, tokens)
            yield Clause(clause, tokens, mode, index, past or _speaks_of_past(low), position, joined_by)


def holds_secret(text: str) -> bool:
    """Whether `text` speaks of a password, a card number, a key…: never kept, in any form."""
    # An ASCII text folds its case only to ASCII letters: without one of the names' stems it names none.
    if text.isascii():
        low = text.lower()
        if not any(stem in low for stem in SECRET_STEMS):
            return False
    return bool(_SECRETS.search(text))


def is_reaction(sentence: str) -> bool:
    """A sentence that only reacts or takes leave ("That's awesome!", "Take care!")."""
    return bool(_REACTION.match(sentence))


def _speaks_of_past(low: str) -> bool:
    words = low.split()[:6]
    return any(
        (
            is_past_form(word)
            and word != "used"
            # "a cat called Miso": a name given, not a past event.
            and not (word in _NAMING and i > 0 and words[i - 1] not in _SUBJECTS)
            # "I've got a tortoise": to have, now.
            and not (word == "got" and i > 0 and words[i - 1] in _HAVE_GOT)
        )
        # "I quit my job", "I hurt my back": the same in the present, and told as what happened.
        or (word in _TOLD_AS_DONE and i > 0 and words[i - 1] in _SUBJECTS)
        for i, word in enumerate(words)
    )


_NAMING, _HAVE_GOT = frozenset({"called", "named", "nicknamed"}), frozenset({"i've", "we've", "ive", "have", "they've"})
_SUBJECTS = frozenset({"i", "we", "he", "she", "they", "you", "who", "just", "finally"})
_TOLD_AS_DONE = frozenset({"quit", "hurt", "split", "shut", "burst"})


def words_of(text: str) -> frozenset[str]:
    return frozenset(_TOKENS.findall(text.lower()))


def addresses_listener(words: frozenset[str]) -> bool:
    return bool(words & _LISTENER_WORDS)


def is_hypothetical(text: str, words: frozenset[str]) -> bool:
    return bool(words & _HYPOTHETICAL_WORDS) or any(phrase in text.lower() for phrase in _HYPOTHETICAL_PHRASES)


def is_hedged(text: str) -> bool:
    return bool(_HEDGE.match(text))


def is_negated(text: str, words: frozenset[str]) -> bool:
    low = text.lower()
    return (
        bool(words & _NEGATION_WORDS)
        or "n't" in low
        or "no longer" in low
        or ("no" in words and any(not _appended(text, match.start()) for match in _NO_THING.finditer(text)))
    )


# "no …" said after a clause, not its negation: after a name, "everything" or another ("switched to ING no fees").
_APPENDED = re.compile(r"(?:\b(?!I\b|I'm\b)(?-i:[A-Z])[\w&'.-]*|\beverything|\banything)\s+(?:no\s+\w+\s+)*$", re.I)


def _appended(text: str, start: int) -> bool:
    if start and re.match(r"No\s+[A-Z]", text[start:]):
        return True  # a name: "at No Frills"
    return not re.match(r"no\s+(?:more|longer)\b", text[start:], re.I) and bool(_APPENDED.search(text[:start]))
