"""How a graph or timeline tab is named (its kind and refs), apart from its widgets and its
registration."""

GRAPH = "graph"  # the kind's name
GLOBAL = "global"  # the ref of the global graph
LOCAL = "local:"  # + an entry id: the ref of its local graph

TIMELINE = "timeline"  # the timeline tab's kind; its ref is the date property it shows
AUTO = "auto"  # the ref of a timeline by the vault's own date property (year, date, created…)
