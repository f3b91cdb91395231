"""Small example sets written for this project: examples, not the benchmark.

They let chapter 6 run with no data directory and no network. Each task has a few dozen
(text, label name) pairs, written by the book's authors in the style of the real datasets.
Accuracies computed on them say nothing about the benchmarks.
"""

from __future__ import annotations

__all__ = ["EXAMPLES"]

_SST2_POS = [
    "a warm , funny and beautifully acted film",
    "the best thriller i have seen in years",
    "a smart , moving story told with real grace",
    "the performances are terrific from start to finish",
    "charming , clever and full of heart",
    "an absorbing and often delightful portrait",
    "it 's a joy to watch",
    "a gorgeous , haunting piece of work",
    "funny , touching and surprisingly wise",
    "the director keeps the energy high and the laughs coming",
    "a rare comedy that earns every laugh",
    "one of the most satisfying films of the year",
    "sharp writing and a great cast make it a pleasure",
    "an uplifting and thoroughly entertaining ride",
    "it 's smart , sweet and never dull",
]
_SST2_NEG = [
    "a dull , plodding mess",
    "the plot is thin and the jokes fall flat",
    "an ugly , pointless exercise in bad taste",
    "tedious from beginning to end",
    "the acting is wooden and the script is worse",
    "a boring film that overstays its welcome",
    "it 's loud , stupid and tiresome",
    "a lifeless and forgettable sequel",
    "the characters are cardboard and the story never makes sense",
    "painfully slow and utterly predictable",
    "a waste of a talented cast",
    "clumsy , confused and far too long",
    "the film never finds its footing",
    "an incoherent and charmless comedy",
    "i was bored within ten minutes",
]

_AG = {
    "World": [
        "Leaders meet in Geneva for peace talks. Diplomats from both sides met on Monday to "
        "discuss a ceasefire.",
        "Earthquake strikes coastal region. Rescue teams searched for survivors after the quake.",
        "Elections held amid tight security. Voters went to the polls in the capital on Sunday.",
        "UN calls for aid to flood victims. The agency said thousands have lost their homes.",
        "Prime minister resigns after vote. The government lost a confidence vote.",
        "Troops withdraw from border town. Soldiers left the area under a new agreement.",
        "Protesters gather outside parliament. Thousands demanded new elections.",
        "Foreign ministers sign trade pact. The treaty cuts tariffs between the two countries.",
    ],
    "Sports": [
        "Striker scores twice in derby win. The home side won 3-1 in front of a full stadium.",
        "Champion advances to semifinal. The top seed won in straight sets on Tuesday.",
        "Team signs veteran quarterback. The club agreed a two-year deal with the passer.",
        "Runner breaks world record. The athlete won the 10,000 metres in record time.",
        "Coach fired after losing streak. The club dismissed its manager after five defeats.",
        "Late goal sends club to final. A header in injury time decided the cup tie.",
        "Pitcher throws no-hitter. The right-hander struck out twelve batters.",
        "Olympic swimmer wins third gold. She won the 200m freestyle in Athens.",
    ],
    "Business": [
        "Oil prices climb to new high. Crude rose above 50 dollars a barrel on supply worries.",
        "Bank reports record quarterly profit. Earnings rose on strong lending growth.",
        "Retailer to cut 2,000 jobs. The chain will close stores to reduce costs.",
        "Stocks fall as rates rise. Wall Street ended lower after the central bank decision.",
        "Airline files for bankruptcy protection. The carrier said it will keep flying.",
        "Merger creates largest drug maker. The deal is valued at 60 billion dollars.",
        "Dollar slips against the euro. Traders sold the currency after weak jobs data.",
        "Carmaker recalls thousands of vehicles. The company cited a brake defect.",
    ],
    "Sci/Tech": [
        "New chip doubles laptop battery life. The processor uses less power at idle.",
        "Scientists sequence genome of rice. Researchers say the map will help breeders.",
        "Software giant patches browser flaw. The update fixes a security hole.",
        "Space probe sends images of Saturn. The spacecraft entered orbit last week.",
        "Researchers find water ice on Mars. Data from the orbiter point to frozen deposits.",
        "Search engine unveils desktop tool. The program indexes files on a personal computer.",
        "Virus spreads through email attachments. Security firms warned users not to open them.",
        "Telescope spots distant planet. Astronomers detected a gas giant near a young star.",
    ],
}

_TREC = {
    "ABBR": [
        "What does NASA stand for ?",
        "What is the abbreviation for Texas ?",
        "What does CPR stand for ?",
        "What is the full form of UN ?",
        "What does the acronym FBI mean ?",
    ],
    "DESC": [
        "What is a black hole ?",
        "Why is the sky blue ?",
        "How does a rainbow form ?",
        "What is the definition of democracy ?",
        "Why do cats purr ?",
        "What causes tides ?",
    ],
    "ENTY": [
        "What color is a giraffe 's tongue ?",
        "What instrument did Miles Davis play ?",
        "What is the national animal of Scotland ?",
        "What language is spoken in Brazil ?",
        "What sport is played at Wimbledon ?",
        "What fruit is used to make cider ?",
    ],
    "HUM": [
        "Who wrote Hamlet ?",
        "Who was the first man on the moon ?",
        "Who invented the telephone ?",
        "Who painted the Mona Lisa ?",
        "Which president freed the slaves ?",
        "Who discovered penicillin ?",
    ],
    "LOC": [
        "Where is the Eiffel Tower ?",
        "What city is the capital of Japan ?",
        "Where is Mount Kilimanjaro ?",
        "What country has the largest population ?",
        "Where was Mozart born ?",
        "What river flows through Egypt ?",
    ],
    "NUM": [
        "How many legs does a spider have ?",
        "When did World War II end ?",
        "How tall is the Empire State Building ?",
        "How far is the moon from the earth ?",
        "What year did the Titanic sink ?",
        "How many people live in Canada ?",
    ],
}

_CAPITALS = [
    ("France", "Paris"),
    ("Italy", "Rome"),
    ("Germany", "Berlin"),
    ("Spain", "Madrid"),
    ("Japan", "Tokyo"),
    ("Russia", "Moscow"),
    ("Egypt", "Cairo"),
    ("Greece", "Athens"),
    ("Portugal", "Lisbon"),
    ("Austria", "Vienna"),
    ("Poland", "Warsaw"),
    ("Ireland", "Dublin"),
    ("Norway", "Oslo"),
    ("Sweden", "Stockholm"),
    ("Finland", "Helsinki"),
    ("Denmark", "Copenhagen"),
    ("Hungary", "Budapest"),
    ("Thailand", "Bangkok"),
    ("Kenya", "Nairobi"),
    ("Peru", "Lima"),
    ("Chile", "Santiago"),
    ("Cuba", "Havana"),
    ("Iran", "Tehran"),
    ("Iraq", "Baghdad"),
    ("China", "Beijing"),
    ("England", "London"),
    ("Belgium", "Brussels"),
    ("Scotland", "Edinburgh"),
    ("Turkey", "Ankara"),
    ("Canada", "Ottawa"),
]

EXAMPLES: dict[str, list[tuple[str, str]]] = {
    "sst2": [(t, "positive") for t in _SST2_POS] + [(t, "negative") for t in _SST2_NEG],
    "ag_news": [(t, k) for k, v in _AG.items() for t in v],
    "trec": [(t, k) for k, v in _TREC.items() for t in v],
    "lama_p36": list(_CAPITALS),
}
