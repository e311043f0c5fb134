"""Console tests use the operators and factories of the root conftest (alice, olivia, victor, nora;
make_memory, make_candidate, make_session)."""
