"""How a graph tab is named (its kind and refs), apart from its widgets and its registration."""

GRAPH = "graph"  # the kind's name
GLOBAL = "global"  # the ref of the global graph
LOCAL = "local:"  # + an entry id: the ref of its local graph
