// Ocean Treasure - C++17 starter bot (one file).  Copy this folder, rename it,
// and improve choose_start() and choose_move().  Everything else is the file
// protocol; it plays exactly like the Python starter in bots/template.
//
// Build (Linux):    g++ -std=c++17 -O2 -o bot bot.cpp
// Build (Windows):  g++ -std=c++17 -O2 -static -o bot.exe bot.cpp      (MinGW-w64)
// Cross-build a Windows .exe on Linux:
//                   x86_64-w64-mingw32-g++ -std=c++17 -O2 -static -o bot.exe bot.cpp
// (-static puts the C++ runtime inside bot.exe: the judge's machine has no
//  libstdc++-6.dll to lend you.)
//
// HOW YOUR PROGRAM IS RUN
//  * Once per turn, as a brand-new process: nothing stays in memory between
//    turns.  STATE.OUT (up to 1 MiB) is the only thing kept for you.
//  * The current folder is your team's folder, holding MAP.INP (and STATE.OUT
//    if you wrote one).  Open the protocol files by their bare names.
//  * 2 seconds and 512 MB per run.  Every file except STATE.OUT is deleted
//    after each turn.
//
// MAP.INP: "M N K" (K = turns left, this one included), "i1 j1 i2 j2" (your
// boat, then the opponent's; "0 0 0 0" at placement), "S B" (your gold; 1 if
// you carry a shield), then M rows of N cells: a number (gold), D (a reef) or
// S (a shield).  Coordinates are 1-based, ROW FIRST.
// MOVE.OUT: one line "i j" - the start cell at placement (it must hold 0), then
// one of the 4 cells sharing an edge with your boat.  Written to the FILE, not
// to the screen.
// RE-ASK: if both boats name the same start cell, both programs run again with
// the same MAP.INP; STATE.OUT then already exists: name another cell.
#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using Cell = std::pair<int, int>;  // (row, column), 1-based
const Cell NONE{0, 0};
const int DIRECTIONS[4][2] = {{-1, 0}, {0, -1}, {0, 1}, {1, 0}};  // up, left, right, down
const int REEF = -1, SHIELD = -2;

struct Game {
    int m = 0, n = 0, k = 0, gold = 0;
    bool shield = false;
    Cell me = NONE, opp = NONE;                 // NONE: the placement turn
    std::vector<std::vector<int>> grid;         // gold >= 0, REEF or SHIELD; grid[i-1][j-1]
    int at(Cell c) const { return grid[c.first - 1][c.second - 1]; }
    bool inside(Cell c) const { return c.first >= 1 && c.first <= m && c.second >= 1 && c.second <= n; }
};

static std::vector<std::string> tokens_of(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream all;
    all << in.rdbuf();
    std::string text = all.str();
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // a UTF-8 mark
    std::vector<std::string> out;
    std::istringstream words(text);                  // spaces, tabs and CRLF all split
    for (std::string w; words >> w;) out.push_back(w);
    return out;
}

static Game read_map(const std::string &path = "MAP.INP") {
    std::vector<std::string> t = tokens_of(path);
    Game g;
    g.m = std::stoi(t.at(0)); g.n = std::stoi(t.at(1)); g.k = std::stoi(t.at(2));
    int i1 = std::stoi(t.at(3)), j1 = std::stoi(t.at(4)), i2 = std::stoi(t.at(5)), j2 = std::stoi(t.at(6));
    g.gold = std::stoi(t.at(7));
    g.shield = t.at(8) == "1";
    g.grid.assign(g.m, std::vector<int>(g.n, 0));
    for (int r = 0; r < g.m; r++)
        for (int c = 0; c < g.n; c++) {
            std::string cell = t.at(9 + r * g.n + c);
            char first = (char)std::toupper((unsigned char)cell[0]);
            if (first == 'D' || first == 'W') g.grid[r][c] = REEF;   // some maps write W
            else if (first == 'S') g.grid[r][c] = SHIELD;
            else g.grid[r][c] = std::stoi(cell);
        }
    if (i1 > 0) g.me = {i1, j1};
    if (i2 > 0) g.opp = {i2, j2};
    return g;
}

static bool read_state(std::string &state, const std::string &path = "STATE.OUT") {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;                           // first run of the round
    std::stringstream all;
    all << in.rdbuf();
    state = all.str();
    return true;
}

static void write_file(const std::string &path, const std::string &text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// Placement: the first 0-cell (row by row) not named before.
static Cell choose_start(const Game &g, const std::vector<Cell> &tried) {
    Cell first = NONE;
    for (int i = 1; i <= g.m; i++)
        for (int j = 1; j <= g.n; j++) {
            if (g.at({i, j}) != 0) continue;         // gold, a reef or a shield
            if (first == NONE) first = {i, j};
            bool named = false;
            for (const Cell &c : tried) named = named || c == Cell{i, j};
            if (!named) return {i, j};
        }
    return first == NONE ? Cell{1, 1} : first;
}

// A simple legal move: neighbouring gold, else the first safe neighbour, else
// stay.  Safe: inside, not a reef (unless shielded), not the opponent's cell
// and not a cell the opponent can reach this turn.
static Cell choose_move(const Game &g) {
    std::vector<Cell> danger;
    if (g.opp != NONE) {
        danger.push_back(g.opp);
        for (const auto &d : DIRECTIONS) danger.push_back({g.opp.first + d[0], g.opp.second + d[1]});
    }
    std::vector<Cell> safe;
    for (const auto &d : DIRECTIONS) {
        Cell c{g.me.first + d[0], g.me.second + d[1]};
        bool risky = !g.inside(c);
        for (const Cell &x : danger) risky = risky || x == c;
        if (risky || (g.at(c) == REEF && !g.shield)) continue;
        safe.push_back(c);
    }
    for (const Cell &c : safe)
        if (g.at(c) > 0) return c;                   // gold next to us: take it
    if (!safe.empty()) return safe[0];
    return g.me;                                     // own cell = stay
}

int main() {
    Game g = read_map();
    std::string state;
    bool has_state = read_state(state);
    Cell move;
    if (g.me == NONE) {
        // Placement.  STATE.OUT lists the cells named so far this round.
        std::vector<Cell> tried;
        if (has_state) {
            std::istringstream in(state);
            std::vector<int> nums;
            for (std::string w; in >> w;)
                if (!w.empty() && std::isdigit((unsigned char)w[0])) nums.push_back(std::stoi(w));
            for (size_t p = 0; p + 1 < nums.size(); p += 2) tried.push_back({nums[p], nums[p + 1]});
        }
        move = choose_start(g, tried);
        tried.push_back(move);
        std::string text = "tried";
        for (const Cell &c : tried) text += " " + std::to_string(c.first) + " " + std::to_string(c.second);
        write_file("STATE.OUT", text + "\n");
    } else {
        move = choose_move(g);
        // STATE.OUT stays as it is unless you rewrite it: keep history or plans there.
    }
    write_file("MOVE.OUT", std::to_string(move.first) + " " + std::to_string(move.second) + "\n");
    return 0;
}
