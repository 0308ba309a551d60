#include "MyAI.hpp"

MyAI::MyAI(int _rowDimension, int _colDimension, int _totalMines, int _agentX, int _agentY) : Agent()
{
    rowDimension = _rowDimension;
    colDimension = _colDimension;
    totalMines = _totalMines;
    agentX = _agentX;
    agentY = _agentY;
    seen.insert({agentX, agentY});
}

Agent::Action MyAI::getAction(int number)
{
    cout << "number " << number << " at " << agentX << " " << agentY << endl;
    if (number == 0)
    {
        for (int dx = -1; dx <= 1; ++dx)
            for (int dy = -1; dy <= 1; ++dy)
            {
                int x = agentX + dx, y = agentY + dy;
                if (x >= 0 && x < colDimension && y >= 0 && y < rowDimension && seen.insert({x, y}).second)
                    safe.push_back({x, y});
            }
    }
    if (safe.empty())
        return {LEAVE, -1, -1};
    agentX = safe.front().first;
    agentY = safe.front().second;
    safe.pop_front();
    return {UNCOVER, agentX, agentY};
}
