//! Reports: A2 compliance, A3 accuracy, A4 judge agreement, closeness; exports.

pub mod closeness;
