//! A minesweeper-arena bot: the protocol client (client, rng) and your strategy (strategy.rs).

pub mod client;
pub mod rng;
pub mod strategy;
