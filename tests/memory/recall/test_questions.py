"""Tables for the question-kind rules (bot.memory.recall.questions)."""

from datetime import datetime

import pytest

from bot.memory.recall.questions import is_identity_question, is_past_question, question_period, question_slots

PAST = [
    "What did I drive before?",
    "what car did i drive before",
    "Where did I live previously?",
    "Where did I use to work?",
    "I used to play the piano, right?",
    "What was my old address?",
    "Who was my previous dentist?",
    "Did I ever tell you about my trip?",
    "What was I doing back when I lived in Leeds?",
    "Do I still smoke, or not anymore?",
    "Which company did I work for formerly?",
    "What was my job originally?",
    "tell me the history of my jobs",
    "What did we talk about last time?",
    "You mentioned something earlier about my sister",
    "Where was I living two years ago?",
    "What was my phone number?",
    "What did I drive before moving to Paris?",
    "my ex-boss, what was her name",
    "What did I do last summer?",
    "Where did I live before that?",
]

NOT_PAST = [
    "What car do I drive?",
    "Where do I live?",
    "What's my favourite food?",
    "Remind me tomorrow at 9 to call mom",
    "Remind me before the meeting tomorrow",
    "what is my wife's name",
    "How are you today?",
    "",
    "   ",
    "Which programming language do I prefer?",
    "Is my dentist appointment on Friday?",
]


@pytest.mark.parametrize("text", PAST)
def test_past_questions(text: str) -> None:
    assert is_past_question(text)


@pytest.mark.parametrize("text", NOT_PAST)
def test_not_past_questions(text: str) -> None:
    assert not is_past_question(text)


IDENTITY = [
    "What's my name?",
    "what is my name",
    "What’s my full name?",
    "Who am I?",
    "How old am I?",
    "Where am I from?",
    "When is my birthday?",
    "Do you know my name?",
    "What are my pronouns?",
    "What do you know about me?",
    "what do you call me",
    "When was I born?",
]

NOT_IDENTITY = [
    "What car do I drive?",
    "What's my wife's favourite colour",
    "Where do I work?",
    "Who is the president?",
    "How old is my dog?",
    "I am from Spain",
    "",
]


@pytest.mark.parametrize("text", IDENTITY)
def test_identity_questions(text: str) -> None:
    assert is_identity_question(text)


@pytest.mark.parametrize("text", NOT_IDENTITY)
def test_not_identity_questions(text: str) -> None:
    assert not is_identity_question(text)


D = datetime


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What did Maria say on 7 July, 2023?", (D(2023, 7, 7), D(2023, 7, 8))),
        ("what happened on July 7th, 2023", (D(2023, 7, 7), D(2023, 7, 8))),
        ("on the 3rd of June 2023", (D(2023, 6, 3), D(2023, 6, 4))),
        ("anything on 2024-02-29?", (D(2024, 2, 29), D(2024, 3, 1))),
        ("What did I do in August 2023?", (D(2023, 8, 1), D(2023, 9, 1))),
        ("in Dec 2023", (D(2023, 12, 1), D(2024, 1, 1))),
        ("How many times did I go to the beach in 2023?", (D(2023, 1, 1), D(2024, 1, 1))),
        ("What did I do last week?", None),
        ("When did I go camping in June?", None),
        ("I have 2023 reasons", None),
        ("on 31 February, 2023", None),
        ("", None),
    ],
)
def test_question_period(text: str, expected: tuple[datetime, datetime] | None) -> None:
    assert question_period(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what do I do for work?", {"job"}),
        ("what do I do for a living?", {"job"}),
        ("what's my job?", {"job"}),
        ("who is my employer?", {"job"}),
        ("where do I live?", {"residence"}),
        ("where's home?", {"residence"}),  # no word about anybody else: the one asking
        ("what's my living situation?", {"residence"}),
        ("what car do I have?", {"car"}),
        ("what do I drive?", {"car"}),
        ("who is my partner?", {"relationship"}),
        ("am I seeing anyone?", {"relationship"}),
        ("what do I eat?", {"diet"}),
        ("what's my phone number?", {"phone"}),
        ("what's my email?", {"email"}),
        ("how old am I?", {"age"}),
        ("how old am i", {"age"}),
        ("what's my age?", {"age"}),
        ("what age am I now?", {"age"}),
        ("how old is my car?", {"car"}),  # the car's age, not the person's
        ("what do I do?", {"job"}),  # "what do you do?": the job
        ("what did I do before?", {"job"}),
        ("what do i do now", {"job"}),
        ("what did I do last week?", set()),  # what happened, not the job
        ("What did I do in August 2023?", set()),
        ("what did I do yesterday?", set()),
        ("what do I do if the train is late?", set()),
        # typed fast: a misspelt topic word, or the topic alone
        ("whats my phone numbr", {"phone"}),
        ("whats my emial", {"email"}),
        ("what's my mail adress?", {"email"}),
        ("whats my jbo", {"job"}),
        ("where do i wrok", {"job"}),
        ("wher do i lvie", {"residence"}),
        ("am i maried", {"relationship"}),
        ("age?", {"age"}),
        ("my age", {"age"}),
        ("what's meta?", set()),  # a word of its own, not "meat" misspelt
        ("do I have a cat?", set()),  # not "car"
        ("where does Anna work?", set()),  # someone else
        ("What is Caroline's job?", set()),
        ("what does he drive?", set()),
        ("where am I from?", set()),  # origin, not where they live now
        ("do I have pets?", set()),
        ("what date is my dentist appointment?", set()),  # a date, not dating
        # a favourite by its category, as the rules store it (a film is a movie)
        ("who is my favourite singer?", {"favorite_singer"}),
        ("whats my fave film", {"favorite_movie"}),
        ("what is my favourite singer of all time?", {"favorite_singer"}),
        ("what is my favourite kind of movie?", {"favorite_movie"}),
        ("what team do I support?", {"favorite_team"}),
        ("who do I support?", {"favorite_team"}),
        ("what does my team at work do?", {"job"}),
        ("what is his favourite movie?", set()),
        ("", set()),
    ],
)
def test_question_slots(text: str, expected: set[str]) -> None:
    assert question_slots(text) == expected
