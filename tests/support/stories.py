"""Life changes told in people's words (no tests here): what someone said first, what they said
when it changed, how they later ask about now and about before, and the words that identify the
old and the new value in an answer. Written for these tests (not taken from any data set), and
shared by the conversation suites without a model, with the embedding model and with the
stand-in model.

`old_marker` appears only in the old fact and `new_marker` only in the new one, so an answer line
holding `old_marker` shows the old fact.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Story:
    topic: str
    old: str
    new: str
    now: str  # a question about the present that shares a word with one of the two facts
    before: str  # a question about the past
    old_marker: str
    new_marker: str
    concept_now: str = ""  # a present question sharing no word with either fact (needs meaning)

    @property
    def id(self) -> str:
        return f"{self.topic}: {self.old} -> {self.new}"


STORIES = [
    # moves
    Story("move", "I live in London", "I moved to Berlin", "where do I live?", "where did I live before?",
          "London", "Berlin", "which city is home for me?"),
    Story("move", "I live in Leeds", "We relocated to Bristol", "which city do I live in?",
          "where did I use to live?", "Leeds", "Bristol", "what town am I in these days?"),
    Story("move", "I live in Paris", "I'm based in Lyon now", "where am I based?", "where was I based previously?",
          "Paris", "Lyon"),
    Story("move", "My home is in Madrid", "I moved to Valencia in March", "where is my home?",
          "where was my home before?", "Madrid", "Valencia"),
    Story("move", "I live with my parents", "I moved into my own flat in Leith", "do I live with my parents?",
          "did I live with my parents before?", "with my parents", "Leith", "what's my living situation?"),
    Story("move", "I'm living in Toronto", "Just moved to Vancouver!", "what city am I living in?",
          "where was I living before?", "Toronto", "Vancouver"),
    # jobs
    Story("job", "I work at Google", "I work at Spotify now", "where do I work?", "where did I work before?",
          "Google", "Spotify", "who is my employer?"),
    Story("job", "I work as a nurse", "I'm a teacher now", "what do I work as?", "what did I work as before?",
          "nurse", "teacher", "what do I do for a living?"),
    Story("job", "I work at a bakery", "I quit the bakery and started at a bank", "where do I work?",
          "where did I work previously?", "work at a bakery", "bank"),
    Story("job", "My manager is Priya", "My manager is Tom now", "who is my manager?", "who was my manager before?",
          "Priya", "Tom", "who is my boss?"),
    Story("job", "I study law at Leeds", "I switched from law to medicine", "what do I study?",
          "what did I study before?", "study law", "medicine"),
    # cars
    Story("car", "I drive a Golf", "I drive a Tesla now", "what do I drive?", "what did I drive before?",
          "Golf", "Tesla", "what's parked in my driveway?"),
    Story("car", "I drive a Honda Civic", "I got a new car, a Mazda 3", "what car do I have?",
          "what car did I have before?", "Honda", "Mazda", "what vehicle do I own?"),
    Story("car", "My car is a red Fiat Panda", "My car is a Volvo XC40 now", "what car do I have?",
          "what was my old car?", "Panda", "Volvo"),
    Story("car", "I have no car", "I drive a Fiat", "do I have a car?", "did I have a car before?",
          "no car", "Fiat"),
    Story("car", "I ride a Vespa to work", "I sold the Vespa and bought an e-bike", "what do I ride to work?",
          "what did I ride before?", "ride a Vespa", "e-bike"),
    # partners
    Story("partner", "My partner is Alex", "I broke up with Alex", "who is my partner?",
          "who was my partner before?", "partner is Alex", "broke up", "am I seeing anyone?"),
    Story("partner", "My boyfriend is Tom", "My boyfriend is Jake", "who is my boyfriend?",
          "who was my boyfriend before?", "Tom", "Jake"),
    Story("partner", "My husband is Mark", "My husband is Luis now", "who is my husband?",
          "who was my husband before?", "Mark", "Luis", "who am I married to?"),
    Story("partner", "I'm single", "I'm dating Chris now", "am I dating anyone?", "was I single before?",
          "single", "Chris"),
    # diets and habits
    Story("diet", "I eat everything", "I became vegetarian", "what do I eat?", "what did I eat before?",
          "everything", "vegetarian", "do I eat meat?"),
    Story("diet", "I'm vegan", "I eat meat again", "do I eat meat?", "was I vegan before?", "vegan", "meat again"),
    Story("diet", "I follow a keto diet", "I quit keto, I'm on a mediterranean diet now", "what diet am I on?",
          "what diet was I on before?", "follow a keto", "mediterranean"),
    Story("diet", "I drink coffee every morning", "I gave up coffee, I drink green tea now", "do I drink coffee?",
          "what did I drink before?", "every morning", "green tea"),
    Story("habit", "I smoke", "I quit smoking last year", "do I smoke?", "did I smoke before?",
          "I smoke", "quit smoking"),
    # pets
    Story("pet", "I have a dog named Rex", "My dog Rex died", "do I have a dog?", "did I have a dog before?",
          "have a dog named", "died"),
    Story("pet", "I have a cat", "I gave my cat to my sister", "do I have a cat?", "did I have a cat before?",
          "I have a cat", "sister"),
    Story("pet", "My hamster is called Nibbles", "My hamster is called Peanut now", "what is my hamster called?",
          "what was my hamster called before?", "Nibbles", "Peanut"),
    # phones and contact details
    Story("phone", "I use an iPhone", "I switched to a Pixel phone", "what phone do I use?",
          "what phone did I use before?", "iPhone", "Pixel", "which smartphone do I have?"),
    Story("phone", "My phone is an iPhone 12", "My phone is a Samsung Galaxy now", "what phone do I have?",
          "what was my old phone?", "iPhone", "Samsung"),
    Story("phone", "My phone number is 555-1234", "My phone number is 555-9999", "what's my phone number?",
          "what was my phone number before?", "1234", "9999", "how can people call me?"),
    Story("contact", "My email is sam@oldmail.com", "My email is sam@newmail.com", "what's my email?",
          "what was my email before?", "oldmail", "newmail", "where should people write to me?"),
    # tastes that change
    Story("taste", "My favourite food is sushi", "My favourite food is ramen now", "what's my favourite food?",
          "what was my favourite food before?", "sushi", "ramen"),
    Story("taste", "I support Arsenal", "I support Spurs now", "which team do I support?",
          "which team did I support before?", "Arsenal", "Spurs"),
    # the same topics as people type them in a chat: lower case, terse, typos, "X is home now"
    # jobs
    Story("job", "i'm a nurse", "I quit nursing, I teach now", "what do I do for a living?",
          "what did I do before?", "nurse", "teach", "what's my job?"),
    Story("job", "I work as a cashier", "Just started at the bank", "where do I work?",
          "where did I work before?", "cashier", "bank"),
    Story("job", "i work at tesco", "Amazon is where I work now", "where do i work?",
          "where did i work before?", "tesco", "Amazon", "who is my employer?"),
    Story("job", "I'm a software developer", "im a data scientist now", "what's my job?",
          "what did I do before?", "software developer", "data scientist", "what do I do for a living?"),
    Story("job", "I'm a barista at Costa", "left costa, i'm a chef now", "what's my job?",
          "what was my job before?", "barista", "chef", "what do I do for a living?"),
    Story("job", "i work at the post office", "new job at the libary", "where do I work?",
          "where did I work before?", "post office", "libary"),
    Story("job", "I'm a student", "I graduated, I work at Deloitte now", "what do I do for a living?",
          "what did I do before?", "student", "Deloitte"),
    # age
    Story("age", "I'm 34", "turned 35 today", "how old am I?", "how old was I before?", "34", "35",
          "what's my age?"),
    Story("age", "i am 29 years old", "I'm 30 now!", "how old am i?", "how old was I before?", "29", "30"),
    # phone numbers and email addresses
    Story("phone", "my number is 555 1234", "new number: 555 9999", "what's my phone number?",
          "what was my number before?", "1234", "9999", "how can people call me?"),
    Story("phone", "My mobile is 07700 900123", "got a new mobile number, 07700 900456", "what's my mobile number?",
          "what was my mobile number before?", "900123", "900456"),
    Story("contact", "my email is jo@oldmail.com", "new email: jo@work.org", "what's my email?",
          "what was my email before?", "oldmail", "work.org"),
    Story("contact", "My email address is kim.lee@yahoo.com", "I use kim.lee@gmail.com for email now",
          "what's my email address?", "what was my email address before?", "yahoo", "gmail"),
    # relationships
    Story("partner", "I'm single", "im seeing someone, her name is Mia", "am I seeing anyone?",
          "was I single before?", "single", "Mia", "who is my partner?"),
    Story("partner", "I'm dating Sam", "Sam and I got engaged!", "am I married?", "was I dating Sam before?",
          "dating", "engaged", "who is my partner?"),
    Story("partner", "I'm married to Dana", "Dana and I got divorced last year", "am I married?",
          "was I married before?", "married to", "divorced"),
    Story("partner", "my girlfriend is Emma", "Emma and I split up", "do I have a girlfriend?",
          "who was my girlfriend before?", "girlfriend is", "split up", "am I seeing anyone?"),
    # cars
    Story("car", "I have a car, a blue Corolla", "sold my car, I take the bus now", "do I have a car?",
          "did I have a car before?", "Corolla", "bus"),
    Story("car", "i own a ford focus", "sold the focus, no car for me now", "do i have a car?",
          "what car did I have before?", "own a ford", "no car"),
    # diets
    Story("diet", "i eat meat", "Im vegan now", "am I vegan?", "what did I eat before?", "eat meat", "vegan",
          "what's my diet?"),
    Story("diet", "I'm vegetarian", "started eating fish again, pescatarian now", "what's my diet?",
          "what was my diet before?", "vegetarian", "pescatarian"),
    Story("diet", "I eat a lot of sugar", "no sugar for me anymore", "do I eat sugar?", "did I eat sugar before?",
          "a lot of sugar", "no sugar"),
    # moves said as "X is home now"
    Story("move", "I live in Dublin", "Galway is home now", "where do I live?", "where did I live before?",
          "Dublin", "Galway"),
    Story("move", "i live in manchester", "lisbon is home now", "where's home?", "where was home before?",
          "manchester", "lisbon"),
    Story("move", "I live in Austin", "moved to denver last month", "what city do i live in?",
          "where did I live before?", "Austin", "denver", "where's home?"),
    Story("move", "My flat is in Brooklyn", "Queens is home now", "where do I live?", "where did I live before?",
          "Brooklyn", "Queens"),
]

# Restatements: the second sentence says the same as the first, with more detail. Nothing
# changed, so neither becomes past: an answer lists the first as current.
# (first, restated, question, a word only the first has... and one only the restatement has)
RESTATEMENTS = [
    ("I work at Google", "I work at Google as a software engineer in the Zurich office", "where do I work?",
     "Zurich"),
    ("i live in berlin", "I live in Berlin, in Kreuzberg, with my partner", "where do I live?", "Kreuzberg"),
]


# Questions that name a topic and neither value ("what do I do for work?" about "I work at
# Google" and "I'm a nurse now"), for a person who told two values of it:
# (old fact, new fact, questions, a word only the old has, one only the new has)
TOPICS = [
    ("I work at Google", "I'm a nurse now",
     ("what do I do for work?", "what do I do for a living?", "where do I work?", "what's my job?",
      "what is my occupation?"), "Google", "nurse"),
    ("I work as a nurse", "I'm a teacher now", ("what's my job?", "what do I do for work?"), "nurse", "teacher"),
    ("I live in London", "I moved to Berlin",
     ("where do I live?", "where's home?", "which city do I live in?", "what town am I based in?"), "London", "Berlin"),
    ("I drive a Golf", "I got a Tesla", ("what car do I have?", "what do I drive?", "what vehicle do I own?"),
     "Golf", "Tesla"),
    ("My boyfriend is Tom", "I'm dating Chris now", ("who is my partner?", "am I seeing anyone?",
                                                    "who is my boyfriend?"), "Tom", "Chris"),
    ("I eat everything", "I became vegetarian", ("what do I eat?", "what's my diet?", "do I eat meat?"),
     "everything", "vegetarian"),
]
