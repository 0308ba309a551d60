// The arena's end of a C++ agent (docs/courses.md): the adapter (arena/isolation/myai/host.py) asks, one line at a
// time, "new ROWS COLS MINES X Y SEED" (a new MyAI) and "get NUMBER" (its getAction), and this answers "ok",
// "action KIND X Y" or "error TEXT". The rules live in the adapter, not here. What the agent prints (cout, printf)
// goes to stderr, its log: this keeps its own copy of stdout for the answers.

#include "MyAI.hpp"

#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <typeinfo>
#include <unistd.h>

namespace
{
std::string readable_type(const char *mangled)
{
    int status = 0;
    char *name = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    std::string text = status == 0 && name != nullptr ? name : mangled;
    std::free(name);
    return text;
}

std::string one_line(std::string text)
{
    std::string::size_type end = text.find_first_of("\r\n");
    return end == std::string::npos ? text : text.substr(0, end);
}
} // namespace

int main()
{
    int answers_fd = dup(1);
    dup2(2, 1);
    FILE *answers = fdopen(answers_fd, "w");
    if (answers == nullptr)
        return 70;
    MyAI *agent = nullptr; // a finished game's agent is kept, as the shell's world keeps it
    std::string line;
    while (std::getline(std::cin, line))
    {
        std::istringstream words(line);
        std::string verb;
        words >> verb;
        std::string answer;
        try
        {
            if (verb == "new")
            {
                int rows = 0, cols = 0, mines = 0, x = 0, y = 0;
                std::string seed;
                words >> rows >> cols >> mines >> x >> y >> seed;
                Agent::seed = seed;
                agent = nullptr;
                agent = new MyAI(rows, cols, mines, x, y);
                answer = "ok";
            }
            else if (verb == "get" && agent != nullptr)
            {
                int number = 0;
                words >> number;
                Agent::Action action = agent->getAction(number);
                answer = "action " + std::to_string(static_cast<int>(action.action)) + " " + std::to_string(action.x) +
                         " " + std::to_string(action.y);
            }
            else if (verb == "quit")
            {
                break;
            }
            else
            {
                answer = "error the arena's driver was asked " + line;
            }
        }
        catch (const std::exception &failure)
        {
            answer = "error " + readable_type(typeid(failure).name()) + ": " + one_line(failure.what());
        }
        catch (...)
        {
            answer = "error an exception that is not a std::exception";
        }
        std::cout.flush();
        std::fflush(stdout);
        std::fprintf(answers, "%s\n", answer.c_str());
        std::fflush(answers);
    }
    return 0;
}
