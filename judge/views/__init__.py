"""Views: turn replay records into things people look at (terminal boards, HTML).

Views only read the records that the referee writes; they never run bots.
"""
