{ Ocean Treasure - Free Pascal starter bot.  Copy this folder, rename it, and
  improve ChooseStart and ChooseMove.  Everything else is the file protocol;
  it plays exactly like the Python starter in bots/template.

  Build (Linux):    fpc -O2 -obot bot.pas
  Build (Windows):  fpc -Px86_64 -Twin64 -O2 bot.pas     (makes a 64-bit bot.exe;
                    needs the x86_64 cross add-on of the usual installer: plain
                    fpc -O2 bot.pas makes a 32-bit .exe, which the judge refuses)

  HOW YOUR PROGRAM IS RUN
   * Once per turn, as a brand-new process: nothing stays in memory between
     turns.  STATE.OUT (up to 1 MiB) is the only thing kept for you.
   * The current folder is your team's folder, holding MAP.INP (and STATE.OUT
     if you wrote one).  Open the protocol files by their bare names.
   * Your own files (weights, an opening book) are beside your program, NOT in
     the current folder.  Open them through ParamStr(0), the program's own path:
       Assign(f, ExtractFilePath(ParamStr(0)) + 'weights.txt');
   * 2 seconds and 512 MB per run.  Every file except STATE.OUT is deleted
     after each turn.

  MAP.INP: "M N K" (K = turns left, this one included), "i1 j1 i2 j2" (your
  boat, then the opponent's; "0 0 0 0" at placement), "S B" (your gold; 1 if
  you carry a shield), then M rows of N cells: a number (gold), D (a reef) or
  S (a shield).  Coordinates are 1-based, ROW FIRST.
  MOVE.OUT: one line "i j" - the start cell at placement (it must hold 0), then
  one of the 4 cells sharing an edge with your boat.  Written to the FILE.
  RE-ASK: if both boats name the same start cell, both programs run again with
  the same MAP.INP; STATE.OUT then already exists: name another cell. }
program bot;

{$mode objfpc}{$H+}

uses SysUtils;

const
  MAXN = 15;
  REEF = -1;
  SHIELD = -2;
  MAXTRIED = 256;
  DI: array[0..3] of integer = (-1, 0, 0, 1);   { up, left, right, down }
  DJ: array[0..3] of integer = (0, -1, 1, 0);
  STEP_SAFE = 0;                           { the kinds of step StepToward looks for }
  STEP_ANY = 1;
  STEP_NOT_OPP = 2;

type
  TCell = record i, j: integer; end;
  TDist = array[1..MAXN, 1..MAXN] of integer;   { moves from a start; -1: unreachable }

var
  M, N, K, Gold: integer;
  HasShield: boolean;
  Me, Opp: TCell;                          { i = 0: not on the map yet }
  Grid: array[1..MAXN, 1..MAXN] of integer;   { gold >= 0, REEF or SHIELD }
  Tried: array[1..MAXTRIED] of TCell;
  NTried: integer;

function MakeCell(i, j: integer): TCell;
begin
  MakeCell.i := i;
  MakeCell.j := j;
end;

function SameCell(const a, b: TCell): boolean;
begin
  SameCell := (a.i = b.i) and (a.j = b.j);
end;

{ Every whitespace-separated word of a file (spaces, tabs and CRLF all split). }
procedure ReadWords(const path: string; var words: array of string; out count: integer;
                    out found: boolean);
var
  f: file of char;
  ch: char;
  w: string;
begin
  count := 0;
  found := false;
  Assign(f, path);
  FileMode := 0;                           { read-only }
  {$I-} Reset(f); {$I+}
  if IOResult <> 0 then exit;
  found := true;
  w := '';
  while not Eof(f) do
  begin
    Read(f, ch);
    if ch in [#9, #10, #13, ' '] then
    begin
      if (w <> '') and (count <= High(words)) then
      begin
        words[count] := w;
        Inc(count);
      end;
      w := '';
    end
    else if not (ch in [#$EF, #$BB, #$BF]) then  { skip a UTF-8 mark }
      w := w + ch;
  end;
  if (w <> '') and (count <= High(words)) then
  begin
    words[count] := w;
    Inc(count);
  end;
  Close(f);
end;

procedure WriteText(const path, text: string);
var
  f: text;
begin
  Assign(f, path);
  Rewrite(f);
  Write(f, text);
  Close(f);
end;

procedure ReadMap;
var
  words: array[0..9 + MAXN * MAXN] of string;
  count, r, c: integer;
  found: boolean;
  t: string;
begin
  ReadWords('MAP.INP', words, count, found);
  M := StrToIntDef(words[0], 0); N := StrToIntDef(words[1], 0); K := StrToIntDef(words[2], 0);
  Me := MakeCell(StrToIntDef(words[3], 0), StrToIntDef(words[4], 0));
  Opp := MakeCell(StrToIntDef(words[5], 0), StrToIntDef(words[6], 0));
  Gold := StrToIntDef(words[7], 0);
  HasShield := words[8] = '1';
  for r := 1 to M do
    for c := 1 to N do
    begin
      t := UpCase(words[9 + (r - 1) * N + (c - 1)]);
      if (t = 'D') or (t = 'W') then Grid[r, c] := REEF     { some maps write W }
      else if t = 'S' then Grid[r, c] := SHIELD
      else Grid[r, c] := StrToIntDef(t, 0);
    end;
end;

function Inside(const c: TCell): boolean;
begin
  Inside := (c.i >= 1) and (c.i <= M) and (c.j >= 1) and (c.j <= N);
end;

function GoldAt(const c: TCell): integer;
begin
  if Grid[c.i, c.j] > 0 then GoldAt := Grid[c.i, c.j] else GoldAt := 0;
end;

function Passable(const c: TCell): boolean;
begin
  Passable := HasShield or (Grid[c.i, c.j] <> REEF);
end;

{ Whether the other boat is on c or can move to it now (two boats on one cell
  both sink). }
function Risky(const c: TCell): boolean;
var
  e: integer;
begin
  Risky := false;
  if Opp.i = 0 then exit;
  if SameCell(c, Opp) then Risky := true;
  for e := 0 to 3 do
    if SameCell(c, MakeCell(Opp.i + DI[e], Opp.j + DJ[e])) then Risky := true;
end;

{ Breadth-first search from start: reefs are walls unless we carry a shield;
  with aside, so are the cells the other boat can reach now (but ours); else
  the other boat is not a wall (it moves); -1 = unreachable. }
procedure Distances(const start: TCell; var dist: TDist; aside: boolean);
var
  queue: array[1..MAXN * MAXN] of TCell;
  head, tail, d: integer;
  c, x: TCell;
  r, s: integer;
begin
  for r := 1 to MAXN do
    for s := 1 to MAXN do
      dist[r, s] := -1;
  dist[start.i, start.j] := 0;
  head := 1; tail := 1;
  queue[1] := start;
  while head <= tail do
  begin
    c := queue[head];
    Inc(head);
    for d := 0 to 3 do
    begin
      x := MakeCell(c.i + DI[d], c.j + DJ[d]);
      if not Inside(x) then continue;
      if dist[x.i, x.j] >= 0 then continue;
      if not Passable(x) then continue;
      if aside and Risky(x) and not SameCell(x, Me) then continue;
      dist[x.i, x.j] := dist[c.i, c.j] + 1;
      Inc(tail);
      queue[tail] := x;
    end;
  end;
end;

{ Placement: the 0-cell with the most gold close by, not named before.  A gold
  cell d steps away adds its value times 4 - d (up to 3 steps away). }
function ChooseStart: TCell;
var
  i, j, t, gi, gj, d, score, bestScore: integer;
  best: TCell;
  named: boolean;
begin
  best := MakeCell(0, 0);
  bestScore := -1;
  for i := 1 to M do
    for j := 1 to N do
      if Grid[i, j] = 0 then
      begin
        named := false;
        for t := 1 to NTried do
          if SameCell(Tried[t], MakeCell(i, j)) then named := true;
        if named then continue;
        score := 0;
        for gi := i - 3 to i + 3 do
          for gj := j - 3 to j + 3 do
            if (gi >= 1) and (gi <= M) and (gj >= 1) and (gj <= N) then
            begin
              d := Abs(i - gi) + Abs(j - gj);
              if d <= 3 then score := score + GoldAt(MakeCell(gi, gj)) * (4 - d);
            end;
        if score > bestScore then
        begin
          best := MakeCell(i, j);
          bestScore := score;
        end;
      end;
  if best.i = 0 then
    for i := M downto 1 do                 { all named before: the first 0-cell }
      for j := N downto 1 do
        if Grid[i, j] = 0 then best := MakeCell(i, j);
  if best.i = 0 then best := MakeCell(1, 1);
  ChooseStart := best;
end;

{ The gold cell to go for (i = 0: none can be reached in time).  The target kept
  in STATE.OUT stays while it still holds gold and can be reached: switching
  targets every turn is how a boat ends up walking back and forth. }
function ChooseTarget(const dist: TDist; const kept: TCell): TCell;
var
  i, j, mine, theirs: integer;
  best, c: TCell;

  function Usable(const x: TCell): boolean;
  begin
    Usable := Inside(x) and (dist[x.i, x.j] > 0) and (dist[x.i, x.j] <= K)
              and (GoldAt(x) > 0);
  end;

begin
  if (kept.i > 0) and Usable(kept) then
  begin
    ChooseTarget := kept;
    exit;
  end;
  best := MakeCell(0, 0);
  for i := 1 to M do                       { row by row: ties go to the top-left }
    for j := 1 to N do
    begin
      c := MakeCell(i, j);
      if not Usable(c) then continue;
      if best.i = 0 then
      begin
        best := c;
        continue;
      end;
      mine := GoldAt(c) * dist[best.i, best.j];     { v / d compared exactly }
      theirs := GoldAt(best) * dist[i, j];
      if (mine > theirs) or ((mine = theirs) and (dist[i, j] < dist[best.i, best.j])) then
        best := c;
    end;
  ChooseTarget := best;
end;

function Safe(const c: TCell): boolean;
begin
  Safe := not Risky(c) and Passable(c);
end;

{ The neighbour one move nearer along way (distances to a goal), as the kind
  says: STEP_SAFE a safe cell that is not prev, STEP_ANY any, STEP_NOT_OPP any
  but the other boat's.  The one with the most gold; ties: the first (up, left,
  right, down).  i = 0: none. }
function StepToward(const way: TDist; kind: integer; const prev: TCell): TCell;
var
  d: integer;
  c, best: TCell;
begin
  best := MakeCell(0, 0);
  for d := 0 to 3 do
  begin
    c := MakeCell(Me.i + DI[d], Me.j + DJ[d]);
    if not Inside(c) or (way[c.i, c.j] <> way[Me.i, Me.j] - 1) then continue;
    if (kind = STEP_SAFE) and (not Safe(c) or SameCell(c, prev)) then continue;
    if (kind = STEP_NOT_OPP) and SameCell(c, Opp) then continue;
    if (best.i = 0) or (GoldAt(c) > GoldAt(best)) then best := c;
  end;
  StepToward := best;
end;

{ One step along a shortest path to the target gold (see the Python starter):
  safe = inside, not a reef unless shielded, not the other boat's cell nor one
  it can move to now.  Never back to prev (last turn's cell) unless it is the
  only safe cell.  Blocked a second turn: round the other boat, for other gold.
  Target is updated. }
function ChooseMove(var target: TCell; const prev: TCell): TCell;
var
  dist, back, way: TDist;
  d, r, s: integer;
  c, best, detour: TCell;
  cp, bp: boolean;

  function ToTarget(const x: TCell): integer;   { moves to the target; M*N if none }
  begin
    if (target.i > 0) and (back[x.i, x.j] >= 0) then ToTarget := back[x.i, x.j]
    else ToTarget := M * N;
  end;

begin
  Distances(Me, dist, false);
  target := ChooseTarget(dist, target);
  for r := 1 to MAXN do
    for s := 1 to MAXN do
      back[r, s] := -1;
  if target.i > 0 then
  begin
    Distances(target, back, false);
    best := StepToward(back, STEP_SAFE, prev);
    if best.i > 0 then
    begin
      ChooseMove := best;
      exit;
    end;
  end;
  if (target.i > 0) and SameCell(prev, Me) then
  begin
    { We waited last turn and the way is still unsafe: the other boat is in it
      (two starter bots facing each other would wait for ever).  Go for the
      best gold we can reach without passing next to it. }
    Distances(Me, dist, true);
    detour := ChooseTarget(dist, MakeCell(0, 0));
    if detour.i > 0 then
    begin
      Distances(detour, way, true);
      best := StepToward(way, STEP_ANY, prev);
      if best.i > 0 then
      begin
        target := detour;
        ChooseMove := best;
        exit;
      end;
    end;
    { No way round: the gold left is past the other boat.  Of two boats that
      wait for each other, the one lower down (then further right) goes on; the
      other keeps waiting, so two starter bots never meet. }
    if (Opp.i > 0) and ((Me.i > Opp.i) or ((Me.i = Opp.i) and (Me.j > Opp.j))) then
    begin
      best := StepToward(back, STEP_NOT_OPP, prev);
      if best.i > 0 then
      begin
        ChooseMove := best;
        exit;
      end;
    end;
  end;
  if not Risky(Me) then
  begin
    ChooseMove := Me;                       { blocked for now, or no gold left: wait }
    exit;
  end;
  best := MakeCell(0, 0);                   { the other boat can hit us: step aside }
  for d := 0 to 3 do
  begin
    c := MakeCell(Me.i + DI[d], Me.j + DJ[d]);
    if not Inside(c) or not Safe(c) then continue;
    if best.i = 0 then
    begin
      best := c;
      continue;
    end;
    cp := SameCell(c, prev);
    bp := SameCell(best, prev);
    if (not cp and bp) or ((cp = bp) and (ToTarget(c) < ToTarget(best))) then best := c;
  end;
  if best.i > 0 then ChooseMove := best else ChooseMove := Me;
end;

{ STATE.OUT as this bot writes it: "tried i j i j ...", "target i j", "from i j". }
procedure ReadState(var target, prev: TCell);
var
  f: text;
  line, w: string;
  nums: array[0..2 * MAXTRIED + 1] of integer;
  nnums, p, v, code: integer;
  head: string;
  first: boolean;
begin
  NTried := 0;
  target := MakeCell(0, 0);
  prev := MakeCell(0, 0);
  Assign(f, 'STATE.OUT');
  FileMode := 0;
  {$I-} Reset(f); {$I+}
  if IOResult <> 0 then exit;              { first run of the round }
  while not Eof(f) do
  begin
    ReadLn(f, line);
    head := '';
    nnums := 0;
    first := true;
    line := line + ' ';
    w := '';
    for p := 1 to Length(line) do
      if line[p] in [#9, #13, ' '] then
      begin
        if w <> '' then
        begin
          if first then head := w
          else
          begin
            Val(w, v, code);
            if (code = 0) and (w[1] in ['0'..'9']) and (nnums <= High(nums)) then
            begin
              nums[nnums] := v;
              Inc(nnums);
            end;
          end;
          first := false;
        end;
        w := '';
      end
      else
        w := w + line[p];
    if head = 'tried' then
    begin
      NTried := 0;
      p := 0;
      while (p + 1 < nnums) and (NTried < MAXTRIED - 1) do
      begin
        Inc(NTried);
        Tried[NTried] := MakeCell(nums[p], nums[p + 1]);
        Inc(p, 2);
      end;
    end
    else if (head = 'target') and (nnums = 2) then
      target := MakeCell(nums[0], nums[1])
    else if (head = 'from') and (nnums = 2) then
      prev := MakeCell(nums[0], nums[1]);
  end;
  Close(f);
end;

var
  move, target, prev: TCell;
  text: string;
  t: integer;
begin
  ReadMap;
  ReadState(target, prev);
  if Me.i = 0 then
  begin
    { Placement.  STATE.OUT lists the cells named so far this round: if it
      exists, this is a re-ask and we must pick another cell. }
    move := ChooseStart;
    Inc(NTried);
    Tried[NTried] := move;
    target := MakeCell(0, 0);
  end
  else
    { STATE.OUT carries our target from turn to turn: a good place for more. }
    move := ChooseMove(target, prev);
  text := 'tried';
  for t := 1 to NTried do
    text := text + ' ' + IntToStr(Tried[t].i) + ' ' + IntToStr(Tried[t].j);
  text := text + LineEnding;
  if target.i > 0 then
    text := text + 'target ' + IntToStr(target.i) + ' ' + IntToStr(target.j) + LineEnding;
  if Me.i > 0 then
    text := text + 'from ' + IntToStr(Me.i) + ' ' + IntToStr(Me.j) + LineEnding;
  WriteText('STATE.OUT', text);
  WriteText('MOVE.OUT', IntToStr(move.i) + ' ' + IntToStr(move.j) + LineEnding);
end.
