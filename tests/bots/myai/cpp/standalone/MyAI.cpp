#include "MyAI.hpp"

#include <algorithm>
#include <cstdlib>

MyAI::MyAI(int _rowDimension, int _colDimension, int _totalMines, int _agentX, int _agentY)
    : rows(_rowDimension), cols(_colDimension), grid(_rowDimension, std::string(_colDimension, '#')), asked(true),
      last(_rowDimension - 1 - _agentY, _agentX), planned(0)
{
    uint64_t high = std::strtoull(seed.substr(0, 16).c_str(), nullptr, 16);
    uint64_t low = std::strtoull(seed.substr(16).c_str(), nullptr, 16);
    state = high ^ low;
}

int MyAI::below(int n)
{
    state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return static_cast<int>((z ^ (z >> 31)) % static_cast<uint64_t>(n));
}

std::vector<MyAI::Cell> MyAI::neighbours(int r, int c) const
{
    std::vector<Cell> found;
    for (int rr = std::max(r - 1, 0); rr < std::min(r + 2, rows); ++rr)
        for (int cc = std::max(c - 1, 0); cc < std::min(c + 2, cols); ++cc)
            if (rr != r || cc != c)
                found.push_back({rr, cc});
    return found;
}

Agent::Action MyAI::act(Action_type kind, int r, int c)
{
    asked = kind == UNCOVER;
    last = {r, c};
    return {kind, c, rows - 1 - r};
}

Agent::Action MyAI::getAction(int number)
{
    if (asked && number >= 0)
    {
        int r = last.first, c = last.second;
        if (grid[r][c] == '#')
        {
            grid[r][c] = static_cast<char>('0' + number);
            if (number == 0)
                for (const Cell &cell : neighbours(r, c))
                    if (grid[cell.first][cell.second] == '#')
                        explore.push_back(cell);
        }
    }
    asked = false;
    while (!explore.empty())
    {
        Cell cell = explore.back();
        explore.pop_back();
        if (grid[cell.first][cell.second] == '#')
            return act(UNCOVER, cell.first, cell.second);
    }
    while (planned < plan.size())
    {
        auto step = plan[planned++];
        if (grid[step.second.first][step.second.second] == '#')
        {
            if (step.first == FLAG)
                grid[step.second.first][step.second.second] = 'F';
            return act(step.first, step.second.first, step.second.second);
        }
    }
    std::set<Cell> safe, mines;
    certain(safe, mines);
    if (!safe.empty() || !mines.empty())
    {
        plan.clear();
        planned = 0;
        for (const Cell &cell : safe)
            plan.push_back({UNCOVER, cell});
        for (const Cell &cell : mines)
            plan.push_back({FLAG, cell});
        return getAction(-1);
    }
    std::vector<Cell> covered;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if (grid[r][c] == '#')
                covered.push_back({r, c});
    Cell cell = covered[below(static_cast<int>(covered.size()))];
    return act(UNCOVER, cell.first, cell.second);
}

void MyAI::certain(std::set<Cell> &safe, std::set<Cell> &mines) const
{
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if (grid[r][c] == 'F')
                mines.insert({r, c});
    bool changed = true;
    while (changed)
    {
        changed = false;
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
            {
                char ch = grid[r][c];
                if (ch < '1' || ch > '8')
                    continue;
                int known = 0;
                std::vector<Cell> unknown;
                for (const Cell &cell : neighbours(r, c))
                {
                    if (mines.count(cell))
                        ++known;
                    else if (grid[cell.first][cell.second] == '#' && !safe.count(cell))
                        unknown.push_back(cell);
                }
                if (unknown.empty())
                    continue;
                if (known == ch - '0')
                {
                    safe.insert(unknown.begin(), unknown.end());
                    changed = true;
                }
                else if (known + static_cast<int>(unknown.size()) == ch - '0')
                {
                    mines.insert(unknown.begin(), unknown.end());
                    changed = true;
                }
            }
    }
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if (grid[r][c] == 'F')
                mines.erase({r, c});
}
