/*
 * greedy.c - Ocean Treasure reference bot, a C99 port of bots/greedy/bot.py.
 *
 * Run once per turn in the team folder: reads MAP.INP (and STATE.OUT from the
 * previous turn), writes MOVE.OUT and STATE.OUT.  Same strategy, same numbers
 * and same STATE.OUT format as the Python bot, so both choose the same moves:
 *
 *  - Placement: score each 0-cell by sum(gold * 0.75^distance) and name the
 *    best; on a re-ask (STATE.OUT exists) the best cell not named before.
 *  - Moves: candidates are "stay" and the enterable neighbours (no reef unless
 *    shielded, never the opponent's cell).  Cells the opponent can enter this
 *    turn are avoided when possible.  Each candidate is scored by its gold
 *    plus a greedy plan (best gold/distance first, discounted by time and by
 *    the opponent getting there first), optionally fetching a shield first.
 *
 * Build: cc -O2 -std=c99 -Wall -Wextra -o greedy greedy.c   (no -lm needed)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAP_FILE "MAP.INP"
#define MOVE_FILE "MOVE.OUT"
#define STATE_FILE "STATE.OUT"
#define STATE_TAG "GREEDY1"

#define REEF (-1)
#define SHIELD (-2)
#define GAMMA 0.95
#define PLACE_DECAY 0.75
#define MAX_PICKS 20
#define LOST_RACE 0.5
#define TIED_RACE 0.75
#define MAX_TRIED 64

/* ---- game -------------------------------------------------------------- */

static int M, N, K, SIZE;
static int me = -1, opp = -1, has_shield;
static int *grid;             /* gold >= 0, REEF, SHIELD */
static int nbr[4096][4];      /* filled for the first SIZE cells */
static int nnbr[4096];
static int **cache;           /* BFS results, index src * 2 + shield */
static int *opp_dist;         /* NULL when the opponent is not a threat */
static double *decay;         /* decay[t] = GAMMA^t */
static int horizon;
static int *gold_idx, *gold_val, ngold;
static int *shield_idx, nshield;
static int *taken;            /* stamp array for the greedy plan */
static int stamp;

/* state kept in STATE.OUT */
static int tried[MAX_TRIED][2], ntried;
static int *prev_shields, nprev_shields; /* flat i, j pairs */
static int opp_shield = -1;              /* -1 unknown */

static char *read_file(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long cap = 4096, n = 0;
    size_t got;
    if (!f)
        return NULL;
    buf = malloc((size_t)cap + 1);
    if (!buf) {
        fclose(f);
        return NULL;
    }
    while ((got = fread(buf + n, 1, (size_t)(cap - n), f)) > 0) {
        n += (long)got;
        if (n == cap) {
            char *nb;
            cap *= 2;
            nb = realloc(buf, (size_t)cap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Splits buf in place into whitespace-separated tokens (skips a UTF-8 BOM). */
static int tokenize(char *buf, char ***out)
{
    int cap = 256, n = 0;
    char **tok = malloc(sizeof(char *) * (size_t)cap);
    char *p = buf;
    if (!tok)
        return 0;
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
        (unsigned char)p[2] == 0xBF)
        p += 3;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' ||
               *p == '\v' || *p == '\f')
            p++;
        if (!*p)
            break;
        if (n == cap) {
            char **nt;
            cap *= 2;
            nt = realloc(tok, sizeof(char *) * (size_t)cap);
            if (!nt)
                break;
            tok = nt;
        }
        tok[n++] = p;
        while (*p && !(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' ||
                       *p == '\v' || *p == '\f'))
            p++;
        if (*p)
            *p++ = '\0';
    }
    *out = tok;
    return n;
}

static int parse_int(const char *s, int *v)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end)
        return 0;
    *v = (int)x;
    return 1;
}

static int cell_value(const char *t)
{
    int v;
    if ((t[0] == 'D' || t[0] == 'd' || t[0] == 'W' || t[0] == 'w') && !t[1])
        return REEF;
    if ((t[0] == 'S' || t[0] == 's') && !t[1])
        return SHIELD;
    if (!parse_int(t, &v))
        return REEF; /* unknown symbol: keep away from it */
    return v > 0 ? v : 0;
}

static int cell_index(int i, int j)
{
    if (i >= 1 && i <= M && j >= 1 && j <= N)
        return (i - 1) * N + (j - 1);
    return -1;
}

static int row_of(int idx) { return idx / N + 1; }
static int col_of(int idx) { return idx % N + 1; }

static void bfs(int src, int shield, int blocked, int *dist)
{
    int *queue = malloc(sizeof(int) * (size_t)SIZE);
    int head = 0, tail = 0, k;
    for (k = 0; k < SIZE; k++)
        dist[k] = -1;
    dist[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
        int u = queue[head++], d = dist[u] + 1;
        for (k = 0; k < nnbr[u]; k++) {
            int v = nbr[u][k];
            if (dist[v] < 0 && v != blocked && (shield || grid[v] != REEF)) {
                dist[v] = d;
                queue[tail++] = v;
            }
        }
    }
    free(queue);
}

static const int *dist_from(int src, int shield)
{
    int key = src * 2 + (shield ? 1 : 0);
    if (!cache[key]) {
        cache[key] = malloc(sizeof(int) * (size_t)SIZE);
        bfs(src, shield, opp, cache[key]);
    }
    return cache[key];
}

static double *make_decays(double factor, int count)
{
    double *d = malloc(sizeof(double) * (size_t)count);
    int t;
    d[0] = 1.0;
    for (t = 1; t < count; t++)
        d[t] = d[t - 1] * factor;
    return d;
}

/* ---- STATE.OUT --------------------------------------------------------- */

static int read_state(void)
{
    char *buf = read_file(STATE_FILE, NULL), **tok = NULL;
    int n, k, key = 0, v, nums[2], have = 0;
    if (!buf)
        return 0;
    n = tokenize(buf, &tok);
    if (n > 0 && strcmp(tok[0], STATE_TAG) == 0) {
        for (k = 1; k < n; k++) {
            if (strcmp(tok[k], "tried") == 0) {
                key = 1;
                have = 0;
            } else if (strcmp(tok[k], "shields") == 0) {
                key = 2;
                have = 0;
            } else if (strcmp(tok[k], "oppshield") == 0) {
                key = 3;
            } else if (parse_int(tok[k], &v)) {
                if (key == 3) {
                    opp_shield = v != 0;
                    key = 0;
                } else if (key == 1 || key == 2) {
                    nums[have++] = v;
                    if (have == 2) {
                        have = 0;
                        if (key == 1 && ntried < MAX_TRIED) {
                            tried[ntried][0] = nums[0];
                            tried[ntried][1] = nums[1];
                            ntried++;
                        } else if (key == 2 && nprev_shields < SIZE) {
                            prev_shields[2 * nprev_shields] = nums[0];
                            prev_shields[2 * nprev_shields + 1] = nums[1];
                            nprev_shields++;
                        }
                    }
                }
            } else {
                key = 0;
            }
        }
    }
    free(tok);
    free(buf);
    return 1; /* the file exists */
}

static void write_state(void)
{
    FILE *f = fopen(STATE_FILE, "w");
    int k;
    if (!f)
        return;
    fprintf(f, "%s\ntried", STATE_TAG);
    for (k = 0; k < ntried; k++)
        fprintf(f, " %d %d", tried[k][0], tried[k][1]);
    fprintf(f, "\nshields");
    for (k = 0; k < SIZE; k++)
        if (grid[k] == SHIELD)
            fprintf(f, " %d %d", row_of(k), col_of(k));
    fprintf(f, "\noppshield %d\n", opp_shield > 0 ? 1 : 0);
    fclose(f);
}

static void write_move(int i, int j)
{
    FILE *f = fopen(MOVE_FILE, "w");
    if (!f)
        return;
    fprintf(f, "%d %d\n", i, j);
    fclose(f);
}

/* ---- placement --------------------------------------------------------- */

static int place(int reask)
{
    double *score = calloc((size_t)SIZE, sizeof(double));
    double *powers = make_decays(PLACE_DECAY, SIZE + 1);
    int *dist = malloc(sizeof(int) * (size_t)SIZE);
    int u, c, k, best = -1, fallback = -1;
    for (u = 0; u < SIZE; u++) {
        if (grid[u] <= 0)
            continue;
        bfs(u, 0, -1, dist);
        for (c = 0; c < SIZE; c++)
            if (dist[c] > 0)
                score[c] += grid[u] * powers[dist[c]];
    }
    for (c = 0; c < SIZE; c++) {
        int was_tried = 0;
        if (grid[c] != 0)
            continue;
        if (fallback < 0 || score[c] > score[fallback])
            fallback = c;
        for (k = 0; reask && k < ntried; k++)
            if (cell_index(tried[k][0], tried[k][1]) == c)
                was_tried = 1;
        if (!was_tried && (best < 0 || score[c] > score[best]))
            best = c;
    }
    if (best < 0)
        best = fallback;
    free(score);
    free(powers);
    free(dist);
    return best; /* -1: no 0-cell at all */
}

/* ---- moves ------------------------------------------------------------- */

static double race(int u, int t)
{
    if (!opp_dist || opp_dist[u] < 0)
        return 1.0;
    if (opp_dist[u] < t)
        return LOST_RACE;
    if (opp_dist[u] == t)
        return TIED_RACE;
    return 1.0;
}

/* Discounted gold of a greedy plan leaving `start` after turn t. */
static double chain(int start, int t, int shield, int skip)
{
    double total = 0.0;
    int cur = start, pick, g;
    stamp++;
    taken[skip] = stamp;
    for (pick = 0; pick < MAX_PICKS; pick++) {
        const int *dist = dist_from(cur, shield);
        int best = -1, best_d = 0;
        double best_score = 0.0, best_val = 0.0;
        for (g = 0; g < ngold; g++) {
            int u = gold_idx[g], d = dist[u];
            double val, sc;
            if (d <= 0 || t + d > horizon || taken[u] == stamp)
                continue;
            val = gold_val[g] * race(u, t + d);
            sc = val / d;
            if (sc > best_score) {
                best = u;
                best_score = sc;
                best_val = val;
                best_d = d;
            }
        }
        if (best < 0)
            break;
        t += best_d;
        total += best_val * decay[t];
        taken[best] = stamp;
        cur = best;
    }
    return total;
}

static double option_value(int o)
{
    int v = grid[o], shield = has_shield || v == SHIELD, s;
    double gain = (v > 0 && o != me) ? v * decay[1] : 0.0;
    double best = chain(o, 1, shield, o);
    if (!shield && nshield > 0) {
        const int *dist = dist_from(o, 0);
        for (s = 0; s < nshield; s++) {
            int d = dist[shield_idx[s]];
            if (d > 0 && 1 + d <= horizon) {
                double c = chain(shield_idx[s], 1 + d, 1, o);
                if (c > best)
                    best = c;
            }
        }
    }
    return gain + best;
}

static int choose_move(void)
{
    int k, u, opp_alive, nopt = 0, nenter = 0, nsafe = 0, *pool, npool;
    int options[5], enter[5], safe[5], danger[5], ndanger = 0, best;
    double best_val = 0.0;

    /* S cells that vanished while we are not on them: the opponent took a
       shield.  Without history, assume it might have one. */
    if (opp_shield < 0)
        opp_shield = 1;
    for (k = 0; k < nprev_shields; k++) {
        u = cell_index(prev_shields[2 * k], prev_shields[2 * k + 1]);
        if (u >= 0 && grid[u] != SHIELD && u != me)
            opp_shield = 1;
    }
    /* An unshielded opponent on a reef is a wreck: it never moves again. */
    opp_alive = opp >= 0 && !(grid[opp] == REEF && !opp_shield);
    if (opp_alive)
        for (k = 0; k < nnbr[opp]; k++)
            if (opp_shield || grid[nbr[opp][k]] != REEF)
                danger[ndanger++] = nbr[opp][k];

    options[nopt++] = me;
    for (k = 0; k < nnbr[me]; k++)
        options[nopt++] = nbr[me][k];
    for (k = 0; k < nopt; k++) {
        int o = options[k], d, bad = 0;
        if (!(o == me || (o != opp && (has_shield || grid[o] != REEF))))
            continue;
        enter[nenter++] = o;
        for (d = 0; d < ndanger; d++)
            if (danger[d] == o)
                bad = 1;
        if (!bad)
            safe[nsafe++] = o;
    }
    pool = nsafe ? safe : enter;
    npool = nsafe ? nsafe : nenter;
    if (npool == 1)
        return pool[0];

    /* planner */
    horizon = K;
    decay = make_decays(GAMMA, (K > 1 ? K : 1) + 2);
    cache = calloc((size_t)SIZE * 2, sizeof(int *));
    taken = calloc((size_t)SIZE, sizeof(int));
    gold_idx = malloc(sizeof(int) * (size_t)SIZE);
    gold_val = malloc(sizeof(int) * (size_t)SIZE);
    shield_idx = malloc(sizeof(int) * (size_t)SIZE);
    for (u = 0; u < SIZE; u++) {
        if (grid[u] > 0) {
            gold_idx[ngold] = u;
            gold_val[ngold++] = grid[u];
        } else if (grid[u] == SHIELD) {
            shield_idx[nshield++] = u;
        }
    }
    if (opp_alive) {
        opp_dist = malloc(sizeof(int) * (size_t)SIZE);
        bfs(opp, opp_shield, me, opp_dist);
    }
    best = pool[0];
    for (k = 0; k < npool; k++) {
        double val = option_value(pool[k]);
        if (k == 0 || val > best_val + 1e-9) {
            best = pool[k];
            best_val = val;
        }
    }
    return best;
}

/* ---- main -------------------------------------------------------------- */

int main(void)
{
    char *buf = read_file(MAP_FILE, NULL), **tok = NULL;
    int ntok, k, r, c, pos[4], gold_now, sh, reask;
    if (!buf)
        return 0;
    ntok = tokenize(buf, &tok);
    if (ntok < 9 || !parse_int(tok[0], &M) || !parse_int(tok[1], &N) ||
        !parse_int(tok[2], &K) || M < 1 || N < 1 || M * N > 4096)
        return 0; /* unreadable MAP.INP: no MOVE.OUT, the boat stays */
    for (k = 0; k < 4; k++)
        if (!parse_int(tok[3 + k], &pos[k]))
            return 0;
    if (!parse_int(tok[7], &gold_now) || !parse_int(tok[8], &sh))
        return 0;
    (void)gold_now;
    has_shield = sh != 0;
    SIZE = M * N;
    grid = malloc(sizeof(int) * (size_t)SIZE);
    prev_shields = malloc(sizeof(int) * 2 * (size_t)SIZE);
    for (k = 0; k < SIZE; k++)
        grid[k] = 9 + k < ntok ? cell_value(tok[9 + k]) : REEF;
    for (r = 0; r < M; r++)
        for (c = 0; c < N; c++) {
            int u = r * N + c, n = 0;
            if (r > 0)
                nbr[u][n++] = (r - 1) * N + c;
            if (c > 0)
                nbr[u][n++] = r * N + c - 1;
            if (c < N - 1)
                nbr[u][n++] = r * N + c + 1;
            if (r < M - 1)
                nbr[u][n++] = (r + 1) * N + c;
            nnbr[u] = n;
        }
    me = cell_index(pos[0], pos[1]);
    opp = cell_index(pos[2], pos[3]);
    reask = read_state();

    if (me < 0) { /* placement turn ("0 0 0 0"); STATE.OUT present = re-ask */
        int cell = place(reask);
        int i = cell >= 0 ? row_of(cell) : 1, j = cell >= 0 ? col_of(cell) : 1;
        write_move(i, j);
        if (!reask)
            ntried = 0;
        if (ntried < MAX_TRIED) {
            tried[ntried][0] = i;
            tried[ntried][1] = j;
            ntried++;
        }
        opp_shield = 0;
    } else {
        int cell = choose_move();
        write_move(row_of(cell), col_of(cell));
    }
    write_state();
    return 0;
}
