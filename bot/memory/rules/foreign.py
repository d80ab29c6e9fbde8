"""The few words of other languages that carry a fact, read as English before the slot rules.

Why: people who write to the bot in English mix in their own language for exactly the facts the
memory keeps ("Soy viudo", "Jubilado desde 2017", "j'habite à Curepipe", "tengo 31, recién
cumplidos", "Mon mari says ..."). The rules read English; rather than write every rule again per
language, these phrases are put into English words on the normalised text (accents folded,
apostrophes as spaces) and the English rules read the rest. The table is small on purpose: first
person forms of being, living, age, having no car, a partner's word and the status words, in
Spanish, Portuguese, French, Italian, German and Dutch. Anything longer goes to the AI judge when one is
configured.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# the status and trade words after "I am" (folded: "viúvo" -> "viuvo", "marié" -> "marie")
_WORDS: dict[str, str] = {
    **dict.fromkeys(("viudo", "viuda", "viuvo", "viuva", "veuf", "veuve", "vedovo", "vedova", "verwitwet",
                     "witwe", "witwer", "weduwe", "weduwnaar"), "widowed"),
    **dict.fromkeys(("casado", "casada", "marie", "mariee", "sposato", "sposata", "verheiratet", "getrouwd",
                     "gehuwd"), "married"),
    **dict.fromkeys(("soltero", "soltera", "solteiro", "solteira", "celibataire", "ledig", "nubile", "vrijgezel"), "single"),
    **dict.fromkeys(("divorciado", "divorciada", "divorce", "divorcee", "divorziato", "divorziata",
                     "geschieden", "gescheiden"), "divorced"),
    **dict.fromkeys(("comprometido", "comprometida", "fiance", "fiancee", "fidanzato", "fidanzata", "verlobt",
                     "verloofd"),
                    "engaged"),
    **dict.fromkeys(("jubilado", "jubilada", "aposentado", "aposentada", "retraite", "retraitee", "pensionato",
                     "pensionata", "in pensione", "rentner", "rentnerin", "pensionista", "gepensioneerd"), "retired"),
    **dict.fromkeys(("vegano", "vegana", "vegane", "veganer", "veganerin", "vegetalien", "vegetalienne"), "vegan"),
    **dict.fromkeys(("vegetariano", "vegetariana", "vegetarien", "vegetarienne", "vegetarier", "vegetarierin"),
                    "vegetarian"),
    **dict.fromkeys(("enfermero", "enfermera", "enfermeiro", "enfermeira", "infirmier", "infirmiere",
                     "infermiere", "infermiera", "krankenschwester", "krankenpfleger", "verpleegkundige", "verpleegster",
                     "verpleger"), "a nurse"),
    **dict.fromkeys(("maestro", "maestra", "profesora", "professora", "professeur", "professeure", "enseignant",
                     "enseignante", "insegnante", "lehrer", "lehrerin", "leraar", "lerares"), "a teacher"),
    **dict.fromkeys(("estudiante", "estudante", "etudiant", "etudiante", "studente", "studentessa"), "a student"),
    **dict.fromkeys(("abogado", "abogada", "advogado", "advogada", "avocat", "avocate", "avvocato", "avvocata"),
                    "a lawyer"),
    **dict.fromkeys(("medico", "medica", "medecin", "arzt", "arztin"), "a doctor"),
}
# the words that are no English word, so they may stand alone ("Jubilado desde 2017.", "Viuda.")
_ALONE = frozenset(w for w in _WORDS if w not in {"divorce", "marie", "fiance", "maestro", "medico", "medica",
                                                  "ledig", "in pensione", "nubile"})
_WORD = "|".join(sorted(_WORDS, key=len, reverse=True))
_ALONE_WORD = "|".join(sorted(_ALONE, key=len, reverse=True))
_PARTNERS = {
    "husband": r"mon mari|mi (?:marido|esposo)|meu marido|mio marito|mein mann|mijn man",
    "wife": r"ma femme|mon epouse|mi (?:esposa|mujer)|minha (?:esposa|mulher)|mia moglie|meine frau|mijn vrouw",
    "boyfriend": r"mi novio|meu namorado|mon copain|il mio ragazzo|mio ragazzo",
    "girlfriend": r"mi novia|minha namorada|ma copine|la mia ragazza|mia ragazza|meine freundin",
}

_REWRITES: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    # being: "soy viudo", "sou aposentada", "je suis divorcee", "ich bin verheiratet"
    (re.compile(rf"(?:^|(?<=[,.!?;:] )|\b(?:yo|eu) )(?:soy|sou|je suis|ich bin|ik ben|sono|estoy|estou) ({_WORD})\b"),
     lambda m: "i am " + _WORDS[m.group(1)]),
    # a trade in "-iste" is the English "-ist": "je suis organiste", "je suis dentiste"
    (re.compile(r"(?:^|(?<=[,.!?;:] ))je suis (?:un |une )?([a-z]{3,})iste\b"), lambda m: f"i am a {m.group(1)}ist"),
    # in an English sentence: "tell it I'm aposentada" (not "I am Marie")
    (re.compile(rf"\bi am ({_ALONE_WORD})\b"), lambda m: "i am " + _WORDS[m.group(1)]),
    # the word alone at a sentence's start: "jubilado desde 2017", "Viuda.", "divorce depuis cinq
    # ans" (a word that is also English only before its language's "since")
    (re.compile(rf"(?:^|(?<=[.!?;:] ))({_ALONE_WORD})(?= (?:desde|depuis|seit|sinds|since|now|ya)\b|[,.!;]|$)"),
     lambda m: "i am " + _WORDS[m.group(1)]),
    (re.compile(rf"(?:^|(?<=[.!?;:] ))({_WORD}) (?=(?:desde|depuis|seit|sinds)\b)"),
     lambda m: "i am " + _WORDS[m.group(1)] + " "),
    # living: "vivo en Bariloche", "moro em Salvador", "j'habite a Curepipe", "abito a Cagliari"
    (re.compile(r"\b(?:(?:yo )?vivo en|(?:eu )?(?:moro|vivo) (?:em|no|na)|j habite(?: a| au| en)?|je vis (?:a|au|en)|"
                r"(?:io )?(?:abito|vivo) a|ich wohne in|ich lebe in|ik woon in) "), "i live in "),
    (re.compile(r"\b(?:vivimos en|moramos em|nous habitons(?: a)?|abitiamo a|wir wohnen in|wij wonen in|we wonen in) "),
     "we live in "),
    # age: "tengo 31, recien cumplidos", "j'ai 44 ans", "tenho 52 anos", "ho 38 anni"
    (re.compile(r"\b(?:(?:yo )?tengo|(?:eu )?tenho|j ai|(?:io )?ho|ich bin|ik ben) ([1-9]\d)(?: (?:anos|ans|anni|jahre(?: alt)?|jaar(?: oud)?))?"
                r"(?:(?=$|[,.!?;])|( (?:y|e|et|und|en|ya|ja|deja))\b)"),
     lambda m: f"i am {m.group(1)}" + (" and" if m.group(2) else "")),
    # their "since": "desde 2017", "depuis cinq ans", "seit 2010"
    (re.compile(r"\b(?:desde|depuis|seit|sinds)\b"), "since"),
    # no car: "no tengo auto", "nao tenho carro", "je n'ai pas de voiture", "ich habe kein auto"
    (re.compile(r"\b(?:no tengo (?:auto|coche|carro)|nao tenho carro|je n ai pas de voiture|non ho (?:la )?macchina|"
                r"ich habe kein auto|ik heb geen auto)\b"), "i have no car"),
    # years of marriage: "quinze ans de mariage", "30 anos de casados", "58 years since our wedding"
    (re.compile(r"\b([a-z0-9]+) (?:ans de mariage|anos de casad[oa]s|anos de casamento|anos de matrimonio|"
                r"anni di matrimonio)\b"), "\\1 years married"),
)
_PARTNER_REWRITES = tuple((re.compile(rf"\b(?:{words})\b"), f"my {english}") for english, words in _PARTNERS.items())
_LETTERS = re.compile(r"[a-z]+")
# a word every phrase above needs: most messages hold none, and a set test is cheaper than a scan
_GATE = frozenset(word.split()[-1] for word in _WORDS) | frozenset(
    "desde depuis seit vivo moro habite vis abito vivimos moramos habitons abitiamo wohne wohnen lebe tengo tenho j ho "
    "bin voiture macchina kein mariage casados casadas casamento matrimonio mari epouse esposa esposo marido mujer "
    "mulher marito mann moglie frau femme novio novia namorado namorada copain copine ragazzo ragazza freundin "
    "ik wonen sinds mijn suis".split()
)


def in_english(norm: str) -> str:
    """`norm` (text.normalise'd) with the fact-carrying phrases of other languages in English."""
    if _GATE.isdisjoint(_LETTERS.findall(norm)):  # nearly every message: nothing to do
        return norm
    for pattern, replacement in _REWRITES:
        norm = pattern.sub(replacement, norm)
    for pattern, replacement in _PARTNER_REWRITES:
        norm = pattern.sub(replacement, norm)
    return norm
