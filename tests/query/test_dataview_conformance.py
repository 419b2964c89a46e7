"""Dataview's documented queries (``docs/queries/*.md``, ``docs/reference/*.md``), each run
over a small vault shaped like the page's example and checked against the output the page
shows, written here by hand. Where the page's output and Dataview's code differ (an old
pluralisation, a typo), the line says so."""

from __future__ import annotations

import pytest
from dv_vault import Note, dataset

from anthology.query.dataview import display_text, parse_query, run_query
from anthology.query.dataview.result import DqlResult, TaskRow
from anthology.query.rows import Budget, Dataset
from anthology.query.values import QueryError

# query-types.md's vault: seven notes of four types, three games
GAMES = dataset([
    Note("Baking/Recipes/Classic Cheesecake.md", props={"type": "recipe"}),
    Note("Coding/Git Basics.md", props={"type": "knowledge"}),
    Note("Coding/Cheatsheets/How to fix Git Cheatsheet.md", props={"type": "summary"}),
    Note("Games/League of Legends.md", tags=["games/moba"], ctime="2021-05-13T10:00",
         props={"type": "game", "started": "2021-05-16", "finished": "2022-11-23",
                "price": 0}),
    Note("Games/Pillars of Eternity 2.md", tags=["games/crpg"], ctime="2022-02-02T10:00",
         props={"type": "game", "started": "2022-04-21", "finished": "2022-11-23",
                "steamid": 560130, "price": 30}),
    Note("Games/finished/Stardew Valley.md", tags=["games/simulation"],
         ctime="2021-04-04T10:00",
         props={"type": "game", "started": "2021-04-04", "finished": "2021-08-28",
                "steamid": 413150, "price": 15}),
    Note("Dashboard.md", props={"type": "moc"},
         links=["League of Legends", "Stardew Valley", "Nowhere"]),
])  # fmt: skip


def run(ds: Dataset, text: str, this: str | None = "Dashboard.md") -> DqlResult:
    return run_query(parse_query(text), ds, this_path=this, budget=Budget())


def cells(result: DqlResult) -> list[list[str]]:
    return [[display_text(v) for v in row] for row in result.rows]


def names(result: DqlResult) -> list[str]:
    return [display_text(row[0]) for row in result.rows]


# ---------------------------------------------------------------- LIST
def test_list_of_every_page() -> None:
    result = run(GAMES, "LIST")
    assert sorted(names(result)) == sorted([
        "Classic Cheesecake", "Git Basics", "How to fix Git Cheatsheet", "League of Legends",
        "Pillars of Eternity 2", "Stardew Valley", "Dashboard"])  # fmt: skip
    assert result.total == 7 and all(len(r) == 1 for r in result.rows)


def test_list_from_tags() -> None:
    result = run(GAMES, "LIST\nFROM #games/moba OR #games/crpg")
    assert names(result) == ["League of Legends", "Pillars of Eternity 2"]


def test_list_with_a_field() -> None:
    shown = {n: v for n, v in cells(run(GAMES, "LIST file.folder"))}
    assert shown == {
        "Classic Cheesecake": "Baking/Recipes", "Git Basics": "Coding",
        "How to fix Git Cheatsheet": "Coding/Cheatsheets", "League of Legends": "Games",
        "Pillars of Eternity 2": "Games", "Stardew Valley": "Games/finished", "Dashboard": "",
    }  # fmt: skip


def test_list_with_a_computed_value() -> None:
    result = run(GAMES, 'LIST "File Path: " + file.folder + " _(created: " + file.cday + ")_"\n'
                        'FROM "Games"')  # fmt: skip
    assert cells(result) == [
        ["League of Legends", "File Path: Games _(created: May 13, 2021)_"],
        ["Pillars of Eternity 2", "File Path: Games _(created: February 02, 2022)_"],
        ["Stardew Valley", "File Path: Games/finished _(created: April 04, 2021)_"],
    ]


def test_grouped_list_shows_the_keys() -> None:
    result = run(GAMES, "LIST\nGROUP BY type")
    assert names(result) == ["game", "knowledge", "moc", "recipe", "summary"]


def test_grouped_list_of_the_groups_links() -> None:
    result = run(GAMES, "LIST rows.file.link\nGROUP BY type")
    shown = {display_text(k): sorted(display_text(x) for x in v) for k, v in result.rows}
    assert shown == {
        "game": ["League of Legends", "Pillars of Eternity 2", "Stardew Valley"],
        "knowledge": ["Git Basics"], "moc": ["Dashboard"], "recipe": ["Classic Cheesecake"],
        "summary": ["How to fix Git Cheatsheet"],
    }  # fmt: skip


def test_list_without_id() -> None:
    assert sorted(names(run(GAMES, "LIST WITHOUT ID"))) == sorted(names(run(GAMES, "LIST")))
    assert sorted(names(run(GAMES, "LIST WITHOUT ID type"))) == [
        "game", "game", "game", "knowledge", "moc", "recipe", "summary"]  # fmt: skip
    result = run(GAMES, 'LIST WITHOUT ID length(rows) + " pages of type " + key\nGROUP BY type')
    assert names(result) == ["3 pages of type game", "1 pages of type knowledge",
                             "1 pages of type moc", "1 pages of type recipe",
                             "1 pages of type summary"]  # fmt: skip


# ---------------------------------------------------------------- TABLE
def test_table_of_files() -> None:
    result = run(GAMES, "TABLE")
    assert result.headers == ["File"] and result.total == 7


def test_table_with_fields() -> None:
    result = run(GAMES, "TABLE started, file.folder, file.etags\nFROM #games")
    assert result.headers == ["File", "started", "file.folder", "file.etags"]
    assert cells(result) == [
        ["League of Legends", "May 16, 2021", "Games", "#games/moba"],
        ["Pillars of Eternity 2", "April 21, 2022", "Games", "#games/crpg"],
        ["Stardew Valley", "April 04, 2021", "Games/finished", "#games/simulation"],
    ]


def test_table_column_headers() -> None:
    result = run(GAMES, 'TABLE started, file.folder AS Path, file.etags AS "File Tags"\n'
                        "FROM #games")  # fmt: skip
    assert result.headers == ["File", "started", "Path", "File Tags"]
    assert cells(result)[2] == ["Stardew Valley", "April 04, 2021", "Games/finished",
                                "#games/simulation"]  # fmt: skip


def test_table_with_a_calculation() -> None:
    result = run(GAMES, 'TABLE\ndefault(finished, date(today)) - started AS "Played for",\n'
                        'file.folder AS Path,\nfile.etags AS "File Tags"\nFROM #games')  # fmt: skip
    assert result.headers == ["File", "Played for", "Path", "File Tags"]
    # the page shows Luxon's older plurals ("1 years, 6 months, 1 weeks")
    assert [row[:2] for row in cells(result)] == [
        ["League of Legends", "1 year, 6 months, 1 week"],
        ["Pillars of Eternity 2", "7 months, 2 days"],
        ["Stardew Valley", "4 months, 3 weeks, 3 days"],
    ]


def test_table_without_id() -> None:
    result = run(GAMES, 'TABLE WITHOUT ID\nsteamid,\nfile.etags AS "File Tags"\nFROM #games')
    assert result.headers == ["steamid", "File Tags"] and not result.id_column
    # the page has the first two rows' tags crossed ("#games/crog"); by the notes:
    assert cells(result) == [["-", "#games/moba"], ["560130", "#games/crpg"],
                             ["413150", "#games/simulation"]]  # fmt: skip
    result = run(GAMES, 'TABLE WITHOUT ID\nfile.link AS "Game",\nfile.etags AS "File Tags"\n'
                        "FROM #games")  # fmt: skip
    assert result.headers == ["Game", "File Tags"]
    assert [r[0] for r in cells(result)] == ["League of Legends", "Pillars of Eternity 2",
                                             "Stardew Valley"]  # fmt: skip


def test_group_by_names_the_id_column() -> None:
    result = run(GAMES, "TABLE length(rows) AS n, sum(rows.price) AS total\nFROM #games\n"
                        "GROUP BY type")  # fmt: skip
    assert result.headers == ["type", "n", "total"]
    assert cells(result) == [["game", "3", "45"]]
    result = run(GAMES, 'TABLE rows.file.name\nGROUP BY (price > 10) AS "pricey"\nWHERE key')
    assert result.headers == ["pricey", "rows.file.name"]
    assert cells(result) == [["true", "Pillars of Eternity 2, Stardew Valley"]]


# ---------------------------------------------------------------- data commands
def test_where_sort_limit() -> None:
    result = run(GAMES, 'LIST\nFROM "Games"\nWHERE price > 10\nSORT started DESC')
    assert names(result) == ["Pillars of Eternity 2", "Stardew Valley"]
    result = run(GAMES, "LIST\nFROM #games\nSORT file.ctime DESC\nLIMIT 2")
    assert names(result) == ["Pillars of Eternity 2", "League of Legends"]
    # commands run in the order written: limited, then sorted
    result = run(GAMES, "LIST\nFROM #games\nSORT started ASC\nLIMIT 2\nSORT started DESC")
    assert names(result) == ["League of Legends", "Stardew Valley"]


def test_sort_on_several_keys_and_nulls_first() -> None:
    result = run(GAMES, "LIST\nSORT type DESC, file.name ASC")
    assert names(result) == ["How to fix Git Cheatsheet", "Classic Cheesecake", "Dashboard",
                             "Git Basics", "League of Legends", "Pillars of Eternity 2",
                             "Stardew Valley"]  # fmt: skip
    # null sorts before every value (Values.compareValue)
    result = run(GAMES, "LIST\nFROM #games\nSORT steamid ASC")
    assert names(result) == ["League of Legends", "Stardew Valley", "Pillars of Eternity 2"]


def test_flatten() -> None:
    ds = dataset([
        Note("Lit/stegEnvironmentalPsychologyIntroduction2018 SN.md", tags=["LiteratureNote"],
             props={"authors": ["Steg, L.", "Van den Berg, A. E.", "De Groot, J. I. M."]}),
        Note("Lit/Soap Dragons SN.md", tags=["LiteratureNote"],
             props={"authors": ["Robert Lamb", "Joe McCormick"]}),
        Note("Lit/smithPainAssaultSelf2007 SN.md", tags=["LiteratureNote"],
             props={"authors": ["Jonathan A. Smith", "Mike Osborn"]}),
    ])  # fmt: skip
    result = run(ds, "TABLE authors FROM #LiteratureNote\nFLATTEN authors", None)
    assert sorted(cells(result)) == sorted([
        ["stegEnvironmentalPsychologyIntroduction2018 SN", "Steg, L."],
        ["stegEnvironmentalPsychologyIntroduction2018 SN", "Van den Berg, A. E."],
        ["stegEnvironmentalPsychologyIntroduction2018 SN", "De Groot, J. I. M."],
        ["Soap Dragons SN", "Robert Lamb"], ["Soap Dragons SN", "Joe McCormick"],
        ["smithPainAssaultSelf2007 SN", "Jonathan A. Smith"],
        ["smithPainAssaultSelf2007 SN", "Mike Osborn"],
    ])  # fmt: skip
    result = run(ds, 'TABLE a AS "Author"\nFLATTEN authors AS a\nWHERE startswith(a, "J")', None)
    assert sorted(r[1] for r in cells(result)) == ["Joe McCormick", "Jonathan A. Smith"]


def test_comments_between_clauses() -> None:
    result = run(GAMES, "// games only\nLIST\n// the cheap ones\nFROM #games\nWHERE price < 20")
    assert names(result) == ["League of Legends", "Stardew Valley"]


def test_keywords_in_any_case() -> None:
    result = run(GAMES, 'table without id file.name as "N" from #games where price > 10 '
                        "sort file.name desc limit 1")  # fmt: skip
    assert result.headers == ["N"] and cells(result) == [["Stardew Valley"]]


# ---------------------------------------------------------------- sources
SOURCES = dataset([
    Note("projects/brainstorming/Ideas.md", tags=["homework"], links=["Food"]),
    Note("projects/Plan.md", tags=["food", "fastfood"], links=["Exercise"]),
    Note("30 Hobbies/Games/Dashboard.md", props={"next-in-line": "Hades"},
         links=["Plan", "Ideas"]),
    Note("30 Hobbies/Games/Dashboard/Old.md", props={"next-in-line": "Celeste"}),
    Note("30 School/Math.md", tags=["assignment"]),
    Note("30 School/32 Homeworks/Essay.md", links=["School Dashboard Current To Dos"]),
    Note("School Dashboard Current To Dos.md", links=["Essay"]),
    Note("Food.md", tags=["food"], links=["Exercise"]),
    Note("Exercise.md"),
    Note("Study MOC.md", links=["Exercise"]),
])  # fmt: skip


@pytest.mark.parametrize(("source", "expected"), [
    ("#homework", ["Ideas"]),
    ('"projects/brainstorming"', ["Ideas"]),
    ('"projects"', ["Ideas", "Plan"]),
    ('"30 Hobbies/Games/Dashboard"', ["Old"]),  # a folder by that path wins over the file
    ('"30 Hobbies/Games/Dashboard.md"', ["Dashboard"]),
    ('"School Dashboard Current To Dos"', ["School Dashboard Current To Dos"]),
    ("[[Exercise]]", ["Food", "Plan", "Study MOC"]),
    ("outgoing([[Dashboard]])", ["Ideas", "Plan"]),
    ("[[Food]] or [[Exercise]]", ["Food", "Ideas", "Plan", "Study MOC"]),
    ('#food and -"projects"', ["Food"]),
    ("#food and !#fastfood", ["Food"]),
    ('-#food and "projects"', ["Ideas"]),
    ("#homework or (#food and #fastfood)", ["Ideas", "Plan"]),
    ('(#assignment AND "30 School") OR ("30 School/32 Homeworks" AND '
     "outgoing([[School Dashboard Current To Dos]]))", ["Essay", "Math"]),
    ('(#assignment AND "30 School") OR ("30 School/32 Homeworks" AND '
     "[[School Dashboard Current To Dos]])", ["Essay", "Math"]),
    ("[[Nowhere]]", []),
])  # fmt: skip
def test_sources(source: str, expected: list[str]) -> None:
    result = run(SOURCES, f"LIST\nFROM {source}", "Exercise.md")
    assert sorted(names(result)) == expected


def test_link_source_of_this_note() -> None:
    for this in ("[[]]", "[[#]]"):
        result = run(SOURCES, f"LIST\nFROM {this}", "Exercise.md")
        assert sorted(names(result)) == ["Food", "Plan", "Study MOC"]


def test_a_specific_file_lists_its_fields() -> None:
    result = run(SOURCES, 'LIST WITHOUT ID next-in-line\nFROM "30 Hobbies/Games/Dashboard.md"')
    assert names(result) == ["Hades"]


# ---------------------------------------------------------------- expressions and fields
def test_fields_by_name_object_and_list_index() -> None:
    ds = dataset([Note("Show.md", props={
        "aliases": ["ABC"], "current_episode": "S01E03", "id": 7, "where": "here",
        "episode_metadata": {"previous": "S01E02", "next": "S01E04"}})])  # fmt: skip
    result = run(ds, 'TABLE id, episode_metadata.next, aliases[0], episode_metadata["previous"], '
                     'row["where"], file.aliases', None)  # fmt: skip
    assert cells(result) == [["Show", "7", "S01E04", "ABC", "S01E02", "here", "ABC"]]


def test_inline_fields_typed_and_by_their_dashed_names() -> None:
    ds = dataset([Note("Movies/Movie X.md", tags=["movies"], props={"genre": "action",
                                                                   "reviewed": False},
                       fields={"Thoughts": ["It was decent."], "Rating": ["6"],
                               "mood": ["okay"], "length": ["2 hours"],
                               "Due Date": ["2024-01-05"],
                               "cast": ["[[Ann]], [[Bo]]"]})])  # fmt: skip
    result = run(ds, "TABLE length, rating, reviewed, typeof(length), rating + 1, due-date, "
                     'cast, Thoughts\nFROM #movies', None)  # fmt: skip
    assert cells(result) == [["Movie X", "2 hours", "6", "false", "duration", "7",
                              "January 05, 2024", "Ann, Bo", "It was decent."]]  # fmt: skip


def test_file_day_from_the_name_or_a_date_field() -> None:
    ds = dataset([
        Note("daily/2022-03-04.md"), Note("daily/20220305 notes.md"),
        Note("Meeting.md", props={"date": "2022-03-06"}), Note("Other.md"),
    ])  # fmt: skip
    result = run(ds, "TABLE file.day\nWHERE file.day.year = 2022\nSORT file.day", None)
    assert cells(result) == [["2022-03-04", "March 04, 2022"],
                             ["20220305 notes", "March 05, 2022"],
                             ["Meeting", "March 06, 2022"]]  # fmt: skip


def test_literals_in_where() -> None:
    ds = dataset([
        Note("Trip.md", props={"start": "2022-05-01", "end": "2022-05-05"}),
        Note("Day.md", props={"start": "2022-05-01", "end": "2022-05-02"}),
    ])  # fmt: skip
    assert names(run(ds, "LIST\nWHERE end - start > dur(2 days)", None)) == ["Trip"]
    assert names(run(ds, 'LIST\nWHERE contains(file.name, "Tri")', None)) == ["Trip"]
    assert names(run(ds, 'LIST\nWHERE file.name = "Day"', None)) == ["Day"]


def test_types_of_metadata_page() -> None:
    ds = dataset([Note("Untitled 2.md", fields={"date1": ["2021-02-26T15:15"],
                                                "date2": ["2021-04-17 18:00"],
                                                "obj": []}),
                  Note("Other.md", fields={"date1": ["2022-01-01"]})])  # fmt: skip
    result = run(ds, "TABLE date1, date2\nWHERE file = this.file", "Untitled 2.md")
    assert cells(result) == [["Untitled 2", "3:15 PM - February 26, 2021", "2021-04-17 18:00"]]


def test_an_inline_query_stored_in_a_field_stays_text() -> None:
    """The FAQ: a field holding `= expr` is that text, and text sorts after a duration."""
    ds = dataset([Note("Example.md", fields={
        "start": ["07h00m"], "end": ["18h00m"], "pause": ["01h30m"],
        "duration": ["`= this.end - this.start - this.pause`"]})])  # fmt: skip
    result = run(ds, "TABLE start, end, duration\nWHERE duration", None)
    assert cells(result) == [["Example", "7 hours", "18 hours",
                              "`= this.end - this.start - this.pause`"]]  # fmt: skip
    assert names(run(ds, 'TABLE start\nWHERE duration > dur("10h")', None)) == ["Example"]
    assert display_text(run(ds, "TABLE end - start - pause", None).rows[0][1]) == (
        "9 hours, 30 minutes")  # fmt: skip


def test_front_matter_objects_and_poems() -> None:
    ds = dataset([
        Note("Poems/The Raven.md", tags=["poems"], props={
            "author": "Edgar Allan Poe", "published": 1845, "thoughts": {"rating": 8}}),
        Note("Poems/Annabel Lee.md", tags=["poems"], props={"author": "Edgar Allan Poe",
                                                             "published": 1849}),
        Note("Poems/Because I could not stop for Death.md", tags=["poems"],
             props={"author": "[[Emily Dickinson]]", "published": 1890}),
        Note("Reading.md", links=["The Raven", "Annabel Lee"]),
    ])  # fmt: skip
    assert names(run(ds, 'LIST\nFROM #poems\nWHERE author = "Edgar Allan Poe"', None)) == [
        "Annabel Lee", "The Raven"]  # fmt: skip
    assert names(run(ds, "LIST\nWHERE thoughts.rating = 8", None)) == ["The Raven"]
    result = run(ds, 'TABLE author, published, file.inlinks AS "Mentions"\nFROM #poems', None)
    assert cells(result) == [
        ["Annabel Lee", "Edgar Allan Poe", "1849", "Reading"],
        ["Because I could not stop for Death", "Emily Dickinson", "1890", ""],
        ["The Raven", "Edgar Allan Poe", "1845", "Reading"],
    ]
    result = run(ds, 'TABLE length(file.inlinks) AS "Counts of Mentions"\nFROM #poems', None)
    assert [r[1] for r in cells(result)] == ["1", "0", "1"]


# ---------------------------------------------------------------- TASK
TASKS = dataset([
    Note("Daily/2022-07-30.md", items=(
        "- [ ] Finish the math assignment\n"
        "    - [x] Finish Paper 1 [due:: 2022-08-13]\n"
        "    - [ ] Read again through chapter 3 [due:: 2022-09-01]\n"
        "    - [x] Write a cheatsheet [due:: 2022-08-02]\n"
        "    - [ ] Write a summary of chapter 1-4 [due:: 2022-09-12]\n"
        "- [x] Hand in physics")),
    Note("Daily/2022-09-21.md", items="- [ ] Buy new shoes #shopping\n"
                                      "- [ ] Mail Paul about training schedule"),
    Note("Daily/2022-09-27.md", items="- [ ] Get new pillows for mom #shopping\n"
                                      "- [x] Buy some working pencils #shopping 📅 2022-09-30"),
])  # fmt: skip
HOUSE = dataset([Note("House.md", section="Chores", items=(
    "- [ ] clean up the house\n"
    "\t- [ ] kitchen\n"
    "\t- [x] living room\n"
    "\t- [ ] Bedroom [urgent:: true]\n"
    "- [ ] Call the insurance about the car\n"
    "- [x] Find out the transaction number"))])  # fmt: skip


def outline(tasks: tuple[TaskRow, ...] | list[TaskRow], depth: int = 0) -> list[str]:
    out = []
    for t in tasks:
        out.append("  " * depth + f"[{t.status}] {t.text}")
        out += outline(t.children, depth + 1)
    return out


def all_tasks(result: DqlResult) -> list[str]:
    return [line for g in result.tasks for line in outline(g.tasks)]


def test_task_children_belong_to_their_parent() -> None:
    expected = ["[ ] clean up the house", "  [ ] kitchen", "  [x] living room",
                "  [ ] Bedroom [urgent:: true]",
                "[ ] Call the insurance about the car"]  # fmt: skip
    everything = [*expected, "[x] Find out the transaction number"]
    assert all_tasks(run(HOUSE, "TASK", None)) == everything
    # living room does not match, yet shows under its parent, which does
    assert all_tasks(run(HOUSE, "TASK\nWHERE !completed", None)) == expected
    assert all_tasks(run(HOUSE, "TASK\nWHERE urgent", None)) == ["[ ] Bedroom [urgent:: true]"]


def test_task_filters_on_task_fields() -> None:
    result = run(TASKS, 'TASK\nWHERE !completed AND contains(tags, "#shopping")', None)
    assert all_tasks(result) == ["[ ] Buy new shoes #shopping",
                                 "[ ] Get new pillows for mom #shopping"]  # fmt: skip
    result = run(TASKS, 'TASK\nWHERE typeof(due) = "date" AND due <= date(2022-09-01)', None)
    assert all_tasks(result) == ["[x] Finish Paper 1 [due:: 2022-08-13]",
                                 "[ ] Read again through chapter 3 [due:: 2022-09-01]",
                                 "[x] Write a cheatsheet [due:: 2022-08-02]"]  # fmt: skip
    # the expressions page's warning: a task with no due date is null, and null <= a date
    unguarded = all_tasks(run(TASKS, "TASK\nWHERE due <= date(2022-09-01)", None))
    assert "[ ] Buy new shoes #shopping" in unguarded
    emoji = all_tasks(run(TASKS, "TASK\nWHERE due = date(2022-09-30)", None))
    assert emoji == ["[x] Buy some working pencils #shopping 📅 2022-09-30"]


def test_a_grandchild_shows_once_under_its_grandparent() -> None:
    ds = dataset([Note("T.md", items="- [ ] top x\n    - [ ] middle\n        - [ ] low x")])
    assert all_tasks(run(ds, 'TASK\nWHERE contains(text, " x")', None)) == [
        "[ ] top x", "  [ ] middle", "    [ ] low x"]  # fmt: skip


def test_sorted_tasks_keep_their_order() -> None:
    result = run(TASKS, "TASK\nWHERE !completed\nSORT text DESC", None)
    heads = [(display_text(g.key), outline(g.tasks)[0]) for g in result.tasks]
    # "Write a summary…" and "Read again…" sort first but show under their parent
    assert heads == [("2022-09-21", "[ ] Mail Paul about training schedule"),
                     ("2022-09-27", "[ ] Get new pillows for mom #shopping"),
                     ("2022-07-30", "[ ] Finish the math assignment"),
                     ("2022-09-21", "[ ] Buy new shoes #shopping")]  # fmt: skip


def test_tasks_grouped_by_file() -> None:
    result = run(TASKS, "TASK\nWHERE !completed\nGROUP BY file.link", None)
    shown = [(display_text(g.key), len(g.tasks)) for g in result.tasks]
    assert shown == [("2022-07-30", 1), ("2022-09-21", 2), ("2022-09-27", 1)]
    first = result.tasks[0].tasks[0]
    assert first.text == "Finish the math assignment" and len(first.children) == 4


def test_task_fields() -> None:
    result = run(HOUSE, "TASK\nWHERE fullyCompleted = false AND checked = false AND "
                        'section = [[House#Chores]] AND line = 0 AND path = "House.md" AND '
                        'file.name = "House" AND length(children) = 3 AND status = " "',
                 None)  # fmt: skip
    assert all_tasks(result)[0] == "[ ] clean up the house"
    table = run(HOUSE, "TABLE T.text, T.completed\nFLATTEN file.tasks AS T\nWHERE T.completed",
                None)  # fmt: skip
    assert [r[1:] for r in cells(table)] == [
        ["living room", "true"], ["Find out the transaction number", "true"]]  # fmt: skip


def test_completion_from_the_emoji_or_the_field() -> None:
    ds = dataset([Note("Week.md", items=(
        "- [ ] Due this Saturday 🗓️2021-08-29\n"
        "- [x] Completed last Saturday ✅2021-08-22\n"
        "- [ ] I made this on ➕1990-06-14\n"
        "- [ ] Task I can start this weekend 🛫2021-08-29\n"
        "- [x] Task I finished ahead of schedule ⏳2021-08-29 ✅2021-08-22\n"
        "- [x] Some Done Task [completion:: 2021-08-22]"))])  # fmt: skip
    result = run(ds, 'TASK\nWHERE completion = date("2021-08-22")', None)
    assert all_tasks(result) == ["[x] Completed last Saturday ✅2021-08-22",
                                 "[x] Task I finished ahead of schedule ⏳2021-08-29 ✅2021-08-22",
                                 "[x] Some Done Task [completion:: 2021-08-22]"]  # fmt: skip
    assert all_tasks(run(ds, "TASK\nWHERE due = date(2021-08-29)", None)) == [
        "[ ] Due this Saturday 🗓️2021-08-29"]  # fmt: skip
    assert len(all_tasks(run(ds, "TASK\nWHERE created", None))) == 1


def test_lists_of_pages_with_unfinished_tasks() -> None:
    assert names(run(TASKS, "LIST\nWHERE any(file.tasks, (t) => !t.fullyCompleted)", None)) == [
        "2022-07-30", "2022-09-21", "2022-09-27"]  # fmt: skip
    tops = [t for t in all_tasks(run(HOUSE, "TASK\nWHERE !fullyCompleted", None))
            if not t.startswith(" ")]  # fmt: skip
    assert tops == ["[ ] clean up the house", "[ ] Call the insurance about the car"]


def test_data_commands_example_runs() -> None:
    result = run(TASKS, "TASK\nWHERE !completed\nSORT created ASC\nLIMIT 10\nGROUP BY file.link\n"
                        "SORT rows.file.ctime ASC", None)  # fmt: skip
    assert result.total > 0 and all(g.tasks for g in result.tasks)


# ---------------------------------------------------------------- CALENDAR
def test_calendar_days() -> None:
    ds = dataset([Note("a.md", props={"due": "2022-01-03"}), Note("b.md", props={"due": "x"}),
                  Note("c.md")])  # fmt: skip
    result = run(ds, 'CALENDAR due\nWHERE typeof(due) = "date"', None)
    assert [(d.day.at.date().isoformat(), display_text(d.link)) for d in result.days] == [
        ("2022-01-03", "a")]  # fmt: skip
    unguarded = run(ds, "CALENDAR due", None)
    assert len(unguarded.days) == 1 and "not a date" in unguarded.warnings[0]


# ---------------------------------------------------------------- paging and errors in place
def test_paging_keeps_the_total() -> None:
    result = run_query(parse_query("LIST"), GAMES, this_path=None, budget=Budget(), limit_rows=3)
    assert len(result.rows) == 3 and result.total == 7 and result.truncated


def test_a_cell_that_fails_shows_its_error_and_the_row_stays() -> None:
    result = run(GAMES, "TABLE price + steamid\nFROM #games")
    shown = cells(result)
    assert len(shown) == 3
    assert shown[0][1].startswith("⚠ No implementation found for 'number + null'")
    assert shown[1][1] == "560160"
    assert "could not be computed" in result.warnings[0]


def test_every_row_failing_fails_the_query() -> None:
    with pytest.raises(QueryError, match="Every row during operation 'where' failed"):
        run(GAMES, "LIST\nWHERE file.size + null > 1")
