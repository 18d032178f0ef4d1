"""Signed mail: what a signature on a player's mail proves about its sender, and the judge's own signatures.

OpenPGP (``openpgp``): players' public keys read and checked, signatures verified over the exact signed bytes, mail
to the judge decrypted, the judge's own mail signed. DKIM (``dkim``, ``resolver``): what the DKIM signatures of a raw
message prove about its From domain, and the judge's own DKIM signature.

Pure where it can be: every check is a function of bytes, keys and the time it is given (``now``); nothing here reads
the store or the clock, and DNS is reached only through the lookup function the shell passes in. The libraries
(pysequoia over Sequoia-PGP, dkimpy, dnspython) are imported by the functions that use them, so that ``judge
--version`` and the commands that never see a signature do not load them.
"""
