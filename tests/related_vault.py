"""A vault shaped like a real one for related entries and the relations ladder: folders,
names with spaces and emoji, no ``id`` or ``kind`` property; three topics (bread, birds,
telescopes) in prose, a reading list whose notes share a book template, a note that is
mostly links and URLs, typed relations in front matter (``introduced by``, ``source``) with
a chain to its end and one that loops."""

from __future__ import annotations

from pathlib import Path

BOOK = """
## Highlights

## My thoughts

Rating:: 4
Status:: finished
"""

FILES: dict[str, str] = {
    "Baking/Sourdough starter 🍞.md": """---
tags: [baking]
introduced by: "[[Wild yeast]]"
---
# Sourdough starter

A sourdough starter is flour and water left to ferment until wild yeast and lactobacilli
settle in. Feed the starter twice a day; a ripe starter doubles, smells sour and domes.
The levain for a loaf is built from the starter the night before the bake. Rye flour
ferments faster than white flour.
""",
    "Baking/Country loaf.md": """---
tags: [baking, recipe]
source: "[[Sourdough starter 🍞]]"
---
# Country loaf

Mix the levain with flour and water, rest for the autolyse, then add salt. Bulk
fermentation takes four hours with stretch and folds; the dough domes and jiggles. Shape,
proof overnight in the fridge, and bake in a dutch oven. A ripe levain and a long
fermentation give the crumb its open holes and the crust its blisters.
""",
    "Baking/Rye bread.md": """---
tags: [baking]
---
# Rye bread

Rye flour holds little gluten, so a rye dough is sticky like clay. A sour rye levain
keeps the crumb from gumming; rye ferments fast, so the bulk fermentation is short.
Bake the loaf in a tin and let the crumb set for a day before slicing.
""",
    "Baking/Wild yeast.md": """---
introduced by: "[[Fermentation history]]"
---
# Wild yeast

Wild yeast lives on grain and fruit skins; with lactobacilli it leavens a sourdough and
gives the sour taste. Ferment flour and water and the wild yeast takes over.
""",
    "Baking/Fermentation history.md": """# Fermentation history

Bakers in Egypt let dough ferment before the bake; leavened bread and beer share an origin
in fermentation of grain.
""",
    "Birds/Garden birds 🐦.md": """---
tags: [birds]
---
# Garden birds

The blackbird, the robin and the blue tit visit the feeder. A robin defends its territory
with song all winter; the blackbird sings at dusk from the roof ridge. Sunflower hearts at
the feeder bring finches; a nest box on the wall brings blue tits in spring.
""",
    "Birds/Robin.md": """---
tags: [birds]
---
# Robin

The robin sings all winter to hold its territory; male and female both sing. A robin
follows the gardener for worms and comes to the feeder for mealworms.
""",
    "Birds/Migration.md": """---
tags: [birds]
---
# Migration

Swallows and swifts leave in autumn for Africa; blackbirds from Scandinavia arrive for the
winter. Birds navigate by the sun, the stars and the magnetic field.
""",
    "Sky/Dobsonian telescope 🔭.md": """---
tags: [astronomy]
---
# Dobsonian telescope

A dobsonian is a newtonian reflector on a simple alt-azimuth mount. Its primary mirror
gathers light for faint galaxies and nebulae; collimate the mirror before observing. An
eyepiece of long focal length gives a wide field.
""",
    "Sky/Eyepieces.md": """---
tags: [astronomy]
---
# Eyepieces

Magnification is the telescope's focal length over the eyepiece's focal length. A wide
field eyepiece frames a nebula; a short one splits double stars. Collimation of the mirror
matters more than the eyepiece.
""",
    "Sky/Messier objects.md": """# Messier objects

The Messier catalogue lists nebulae, clusters and galaxies: the Orion nebula, the
Andromeda galaxy. A small reflector shows most of them under a dark sky.
""",
    "Reading/Links to read.md": """# Links to read

- https://github.com/example/sourdough-notes/blob/main/README.md?tab=readme#starter
- [Starter guide](https://www.example.com/bread/starter-guide?utm_source=feed&utm_medium=rss)
- <https://docs.example.org/wiki/Levain_(bread)>
- www.example.net/fermentation/levain-schedule.html
- https://github.com/example/sourdough-notes/issues/42
- [[Sourdough starter 🍞]] and [[Country loaf]]

A levain schedule for the weekend bake, and a starter that doubles.
""",
    "Reading/Books/The Bread Book.md": "# The Bread Book\n"
    + BOOK
    + "\nA baker's guide to levain, rye flour and the long fermentation of a country loaf.\n",
    "Reading/Books/Birds of Britain.md": "# Birds of Britain\n"
    + BOOK
    + "\nA field guide to the robin, the blackbird and the migration of swallows.\n",
    "Reading/Books/Turn Left at Orion.md": "# Turn Left at Orion\n"
    + BOOK
    + "\nA guide to the Messier objects for a small reflector telescope and its eyepiece.\n",
    "Reading/Books/Cosmos.md": "# Cosmos\n"
    + BOOK
    + "\nThe galaxies, the stars and the nebulae, told for the eyepiece of the mind.\n",
    "Reading/Books/The Robin.md": "# The Robin\n"
    + BOOK
    + "\nA year in the life of a robin: its territory, its song and its nest.\n",
    "Loop/Alpha.md": '---\nfollows: "[[Beta]]"\n---\n# Alpha\n\nThe first of three.\n',
    "Loop/Beta.md": '---\nfollows: "[[Gamma]]"\n---\n# Beta\n\nThe second of three.\n',
    "Loop/Gamma.md": '---\nfollows: "[[Alpha]]"\n---\n# Gamma\n\nThe third of three.\n',
    "One word.md": "Sourdough\n",
}


def write_related_vault(root: Path, extra: dict[str, str] | None = None) -> Path:
    for rel, text in {**FILES, **(extra or {})}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
