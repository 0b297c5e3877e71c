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
//  * Your own files (weights, an opening book) are beside your program, NOT in
//    the current folder.  Open them through argv[0], the program's own path (on
//    Linux and under wine alike), with main declared as
//    int main(int argc, char** argv):
//      std::string dir = argv[0]; dir.erase(dir.find_last_of("/\\") + 1); std::ifstream in(dir + "weights.txt");
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
#include <algorithm>
#include <cctype>
#include <cstdlib>
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

static std::vector<Cell> neighbours(const Game &g, Cell c) {
    std::vector<Cell> out;                            // up, left, right, down; inside only
    for (const auto &d : DIRECTIONS) {
        Cell x{c.first + d[0], c.second + d[1]};
        if (g.inside(x)) out.push_back(x);
    }
    return out;
}

static int gold_at(const Game &g, Cell c) { return g.at(c) > 0 ? g.at(c) : 0; }

using Dist = std::vector<std::vector<int>>;          // moves from the start; -1: unreachable

// Breadth-first search from `start`: reefs are walls unless we carry a shield,
// and so are the cells in `walls`.  The other boat is not a wall unless it is
// in `walls` (it moves).
static Dist distances(const Game &g, Cell start, const std::vector<Cell> &walls = {}) {
    Dist dist(g.m + 1, std::vector<int>(g.n + 1, -1));
    std::vector<Cell> queue{start};
    dist[start.first][start.second] = 0;
    for (size_t q = 0; q < queue.size(); q++) {
        Cell c = queue[q];
        for (Cell x : neighbours(g, c)) {
            if (dist[x.first][x.second] >= 0) continue;
            if (std::find(walls.begin(), walls.end(), x) != walls.end()) continue;
            if (g.at(x) == REEF && !g.shield) continue;
            dist[x.first][x.second] = dist[c.first][c.second] + 1;
            queue.push_back(x);
        }
    }
    return dist;
}

// Placement: the 0-cell with the most gold close by, not named before.  A gold
// cell d steps away adds its value times 4 - d (up to 3 steps away).
static Cell choose_start(const Game &g, const std::vector<Cell> &tried) {
    Cell best = NONE;
    int best_score = -1;
    for (int i = 1; i <= g.m; i++)
        for (int j = 1; j <= g.n; j++) {
            if (g.at({i, j}) != 0) continue;         // gold, a reef or a shield
            bool named = false;
            for (const Cell &c : tried) named = named || c == Cell{i, j};
            if (named) continue;
            int score = 0;
            for (int gi = std::max(1, i - 3); gi <= std::min(g.m, i + 3); gi++)
                for (int gj = std::max(1, j - 3); gj <= std::min(g.n, j + 3); gj++) {
                    int d = std::abs(i - gi) + std::abs(j - gj);
                    if (d <= 3) score += gold_at(g, {gi, gj}) * (4 - d);
                }
            if (score > best_score) { best = {i, j}; best_score = score; }
        }
    if (best != NONE) return best;
    for (int i = 1; i <= g.m; i++)
        for (int j = 1; j <= g.n; j++)
            if (g.at({i, j}) == 0) return {i, j};
    return {1, 1};
}

// The gold cell to go for (NONE: none can be reached in time).  The target kept
// in STATE.OUT stays while it still holds gold and can be reached: switching
// targets every turn is how a boat ends up walking back and forth.
static Cell choose_target(const Game &g, const Dist &dist, Cell kept) {
    auto usable = [&](Cell c) {
        int d = dist[c.first][c.second];
        return gold_at(g, c) > 0 && d > 0 && d <= g.k;
    };
    if (kept != NONE && g.inside(kept) && usable(kept)) return kept;
    Cell best = NONE;
    for (int i = 1; i <= g.m; i++)                   // row by row: ties go top-left
        for (int j = 1; j <= g.n; j++) {
            Cell c{i, j};
            if (!usable(c)) continue;
            if (best == NONE) { best = c; continue; }
            int dc = dist[i][j], db = dist[best.first][best.second];
            int mine = gold_at(g, c) * db, theirs = gold_at(g, best) * dc;  // v/d, exactly
            if (mine > theirs || (mine == theirs && dc < db)) best = c;
        }
    return best;
}

// The neighbour one move nearer along `way` (distances to a goal) for which
// ok(cell) holds: the one with the most gold; ties: the first (up, left, right,
// down).  NONE if there is none.
template <class Ok>
static Cell step_toward(const Game &g, const Dist &way, Ok ok) {
    int here = way[g.me.first][g.me.second];
    Cell best = NONE;
    for (Cell c : neighbours(g, g.me)) {
        if (way[c.first][c.second] != here - 1 || !ok(c)) continue;
        if (best == NONE || gold_at(g, c) > gold_at(g, best)) best = c;
    }
    return best;
}

// One step along a shortest path to the target gold (see the Python starter):
// safe = inside, not a reef unless shielded, not the other boat's cell nor one
// it can move to now.  Never back to `prev` (last turn's cell) unless it is the
// only safe cell.  Blocked a second turn: round the other boat, for other gold.
// Returns the move; `target` is updated.
static Cell choose_move(const Game &g, Cell &target, Cell prev) {
    std::vector<Cell> danger;
    if (g.opp != NONE) {
        danger.push_back(g.opp);
        for (Cell x : neighbours(g, g.opp)) danger.push_back(x);
    }
    auto risky = [&](Cell c) {
        for (const Cell &x : danger) if (x == c) return true;
        return false;
    };
    auto safe = [&](Cell c) { return !risky(c) && (g.shield || g.at(c) != REEF); };
    Dist dist = distances(g, g.me);
    target = choose_target(g, dist, target);
    Dist back;
    if (target != NONE) back = distances(g, target);
    auto to_target = [&](Cell c) {                   // moves to the target; m*n if none
        int d = target != NONE ? back[c.first][c.second] : -1;
        return d >= 0 ? d : g.m * g.n;
    };
    if (target != NONE) {
        Cell best = step_toward(g, back, [&](Cell c) { return safe(c) && c != prev; });
        if (best != NONE) return best;
    }
    if (target != NONE && prev == g.me) {
        // We waited last turn and the way is still unsafe: the other boat is in
        // it (two starter bots facing each other would wait for ever).  Go for
        // the best gold we can reach without passing next to it.
        std::vector<Cell> walls;
        for (const Cell &x : danger) if (x != g.me) walls.push_back(x);
        Cell detour = choose_target(g, distances(g, g.me, walls), NONE);
        if (detour != NONE) {
            Cell best = step_toward(g, distances(g, detour, walls), [](Cell) { return true; });
            if (best != NONE) { target = detour; return best; }
        }
        // No way round: the gold left is past the other boat.  Of two boats that
        // wait for each other, the one lower down (then further right) goes on;
        // the other keeps waiting, so two starter bots never meet.
        if (g.opp != NONE && g.me > g.opp) {
            Cell best = step_toward(g, back, [&](Cell c) { return c != g.opp; });
            if (best != NONE) return best;
        }
    }
    if (!risky(g.me)) return g.me;                   // blocked for now, or no gold left: wait
    Cell best = NONE;                                // the other boat can hit us: step aside
    for (Cell c : neighbours(g, g.me)) {
        if (!safe(c)) continue;
        if (best == NONE) { best = c; continue; }
        bool cp = c == prev, bp = best == prev;
        if (cp < bp || (cp == bp && to_target(c) < to_target(best))) best = c;
    }
    return best != NONE ? best : g.me;
}

// STATE.OUT as this bot writes it: "tried i j i j ...", "target i j", "from i j".
static void parse_state(const std::string &state, std::vector<Cell> &tried, Cell &target,
                        Cell &prev) {
    std::istringstream lines(state);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream in(line);
        std::string head;
        in >> head;
        std::vector<int> nums;
        for (std::string w; in >> w;)
            if (!w.empty() && std::isdigit((unsigned char)w[0])) nums.push_back(std::stoi(w));
        if (head == "tried") {
            tried.clear();
            for (size_t p = 0; p + 1 < nums.size(); p += 2) tried.push_back({nums[p], nums[p + 1]});
        } else if (head == "target" && nums.size() == 2) {
            target = {nums[0], nums[1]};
        } else if (head == "from" && nums.size() == 2) {
            prev = {nums[0], nums[1]};
        }
    }
}

static std::string format_state(const std::vector<Cell> &tried, Cell target, Cell here) {
    std::string text = "tried";
    for (const Cell &c : tried) text += " " + std::to_string(c.first) + " " + std::to_string(c.second);
    text += "\n";
    if (target != NONE)
        text += "target " + std::to_string(target.first) + " " + std::to_string(target.second) + "\n";
    if (here != NONE)
        text += "from " + std::to_string(here.first) + " " + std::to_string(here.second) + "\n";
    return text;
}

int main() {
    Game g = read_map();
    std::string state;
    read_state(state);
    std::vector<Cell> tried;
    Cell target = NONE, prev = NONE, move;
    parse_state(state, tried, target, prev);
    if (g.me == NONE) {
        // Placement.  STATE.OUT lists the cells named so far this round: if it
        // exists, this is a re-ask and we must pick another cell.
        move = choose_start(g, tried);
        tried.push_back(move);
        target = NONE;
    } else {
        // STATE.OUT carries our target from turn to turn: a good place for more.
        move = choose_move(g, target, prev);
    }
    write_file("STATE.OUT", format_state(tried, target, g.me));
    write_file("MOVE.OUT", std::to_string(move.first) + " " + std::to_string(move.second) + "\n");
    return 0;
}
