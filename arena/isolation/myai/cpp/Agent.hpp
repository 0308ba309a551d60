// The course shell's abstract agent, as the arena provides it: MyAI derives from Agent and answers getAction(number)
// with an Action. Keep this file as it is: the arena builds your agent with its own copy (docs/courses.md).

#ifndef MINE_SWEEPER_CPP_SHELL_AGENT_HPP
#define MINE_SWEEPER_CPP_SHELL_AGENT_HPP

#include <string>

class Agent
{
public:
    int rowDimension;
    int colDimension;
    int totalMines;
    int agentX;
    int agentY;

    // The game's seed (32 hex digits, the protocol's: docs/protocol.md), for an agent that wants the shared generator.
    inline static std::string seed = "00000000000000000000000000000000";

    // Actuators
    enum Action_type
    {
        LEAVE,
        UNCOVER,
        FLAG,
        UNFLAG,
    };

    // x is the column, y the row counted from the bottom, both from 0.
    struct Action
    {
        Action_type action;
        int x;
        int y;
    };

    virtual Action getAction(int number) = 0;
};

#endif // MINE_SWEEPER_CPP_SHELL_AGENT_HPP
