// Starts the bot: the protocol client with the strategy of src/strategy.cpp. run.sh runs the built program.
#include <iostream>

#include "client.hpp"

int main() {
    std::ios::sync_with_stdio(false);
    Client client(BOT_NAME, BOT_VERSION, make_strategy);
    client.run(std::cin, std::cout);
    return 0;
}
