"""OpenPGP for the judge: players' public keys read and checked, signatures verified over the exact signed bytes,
mail to the judge decrypted, the judge's own mail signed.

Pure where it can be: every function is one of bytes, keys and the time it is given (``now``); nothing here reads
the store, the clock, the network or a keyring. The OpenPGP library (pysequoia, over Sequoia-PGP) is imported by the
functions that use it, so that ``judge --version`` and the commands that never see a signature do not load it.
"""
