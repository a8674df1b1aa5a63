//! IR verifier (structure, types, SSA dominance).
