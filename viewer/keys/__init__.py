"""Keys: the one table of keyboard inputs and the parser of scripted keys and clicks."""
