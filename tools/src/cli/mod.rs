//! The `tester` subcommands (filled in below).
