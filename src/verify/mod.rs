//! Verification: verdicts, Z3 for logic, automata for regexes.

pub mod automata;
