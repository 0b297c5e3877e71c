"""Ocean Treasure judge: referee, sandbox and tournament runner.

The package flows one way: maps -> rules -> protocol -> sandbox -> referee ->
tournament -> cli/views.  Lower layers never import higher ones.
"""

__version__ = "0.1.0"
