//! Starts the bot: the protocol client with the strategy of src/strategy.rs. run.sh runs the built program.

use std::io::{stdin, stdout};

use botkit::client::Client;
use botkit::strategy::{make, NAME, VERSION};

fn main() {
    let mut client = Client::new(NAME, VERSION, Box::new(make));
    if let Err(error) = client.run(stdin().lock(), stdout().lock()) {
        eprintln!("error: {}", error);
        std::process::exit(1);
    }
}
