"""The command line: `sgview`'s arguments and what a run of them does."""
