{ Ocean Treasure - Free Pascal starter bot.  Copy this folder, rename it, and
  improve ChooseStart and ChooseMove.  Everything else is the file protocol;
  it plays exactly like the Python starter in bots/template.

  Build (Linux):    fpc -O2 -obot bot.pas
  Build (Windows):  fpc -O2 bot.pas            (makes bot.exe; a 64-bit Free
                    Pascal for Windows makes a 64-bit .exe)

  HOW YOUR PROGRAM IS RUN
   * Once per turn, as a brand-new process: nothing stays in memory between
     turns.  STATE.OUT (up to 1 MiB) is the only thing kept for you.
   * The current folder is your team's folder, holding MAP.INP (and STATE.OUT
     if you wrote one).  Open the protocol files by their bare names.
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

type
  TCell = record i, j: integer; end;

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

{ Placement: the first 0-cell (row by row) not named before. }
function ChooseStart: TCell;
var
  i, j, t: integer;
  first: TCell;
  named: boolean;
begin
  first := MakeCell(0, 0);
  for i := 1 to M do
    for j := 1 to N do
      if Grid[i, j] = 0 then
      begin
        if first.i = 0 then first := MakeCell(i, j);
        named := false;
        for t := 1 to NTried do
          if SameCell(Tried[t], MakeCell(i, j)) then named := true;
        if not named then
        begin
          ChooseStart := MakeCell(i, j);
          exit;
        end;
      end;
  if first.i = 0 then first := MakeCell(1, 1);
  ChooseStart := first;
end;

{ A simple legal move: neighbouring gold, else the first safe neighbour, else
  stay.  Safe: inside, not a reef (unless shielded), not the opponent's cell
  and not a cell the opponent can reach this turn. }
function ChooseMove: TCell;
var
  d, e, nsafe: integer;
  c: TCell;
  risky: boolean;
  safe: array[0..3] of TCell;
begin
  nsafe := 0;
  for d := 0 to 3 do
  begin
    c := MakeCell(Me.i + DI[d], Me.j + DJ[d]);
    risky := not Inside(c);
    if (Opp.i > 0) and not risky then
    begin
      if SameCell(c, Opp) then risky := true;
      for e := 0 to 3 do
        if SameCell(c, MakeCell(Opp.i + DI[e], Opp.j + DJ[e])) then risky := true;
    end;
    if risky then continue;
    if (Grid[c.i, c.j] = REEF) and not HasShield then continue;
    safe[nsafe] := c;
    Inc(nsafe);
  end;
  for d := 0 to nsafe - 1 do
    if Grid[safe[d].i, safe[d].j] > 0 then      { gold next to us: take it }
    begin
      ChooseMove := safe[d];
      exit;
    end;
  if nsafe > 0 then ChooseMove := safe[0]
  else ChooseMove := Me;                        { own cell = stay }
end;

procedure ReadTried;
var
  words: array[0..2 * MAXTRIED + 1] of string;
  count, p, v, code: integer;
  nums: array[0..2 * MAXTRIED + 1] of integer;
  nnums: integer;
  found: boolean;
begin
  NTried := 0;
  ReadWords('STATE.OUT', words, count, found);
  nnums := 0;
  for p := 0 to count - 1 do
  begin
    Val(words[p], v, code);
    if (code = 0) and (words[p][1] in ['0'..'9']) then
    begin
      nums[nnums] := v;
      Inc(nnums);
    end;
  end;
  p := 0;
  while (p + 1 < nnums) and (NTried < MAXTRIED - 1) do
  begin
    Inc(NTried);
    Tried[NTried] := MakeCell(nums[p], nums[p + 1]);
    Inc(p, 2);
  end;
end;

var
  move: TCell;
  text: string;
  t: integer;
begin
  ReadMap;
  if Me.i = 0 then
  begin
    { Placement.  STATE.OUT lists the cells named so far this round. }
    ReadTried;
    move := ChooseStart;
    Inc(NTried);
    Tried[NTried] := move;
    text := 'tried';
    for t := 1 to NTried do
      text := text + ' ' + IntToStr(Tried[t].i) + ' ' + IntToStr(Tried[t].j);
    WriteText('STATE.OUT', text + LineEnding);
  end
  else
    move := ChooseMove;
    { STATE.OUT stays as it is unless you rewrite it: keep history or plans there. }
  WriteText('MOVE.OUT', IntToStr(move.i) + ' ' + IntToStr(move.j) + LineEnding);
end.
