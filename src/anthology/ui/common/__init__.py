"""What every room of the window shares: the task runner, the theme, typeset math as images,
keyboard and click conventions of lists. Imports no other room."""
