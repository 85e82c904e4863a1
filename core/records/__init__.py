"""Records: what a Reader result holds, what makes a record valid, what an answer cites,
and the `moca.citations` event built from it. No state; nothing here knows a run."""
