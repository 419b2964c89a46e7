"""The main window: builds the rooms and wires them (actions, menus, docks, live reload,
exports). The only room that imports the others."""
