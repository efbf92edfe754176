;; The literal scanner's hot loop (literalScanner.ts) in WebAssembly: the same byte DFA walked over
;; four parts of a piece at once, each part's step independent of the others' so that their table
;; loads overlap. JavaScript's version of this loop ran at about 350 MB/s, its bounds checks and
;; tagging being most of each step; here a step is a byte load, a class load and a table load.
;;
;; Memory, laid out by the caller:
;;   [0, 256)        byte → class (u8)
;;   [256, 384)      four parts of 32 bytes: i, end, s, line, start (i32 each; i, end and start
;;                   are addresses of the piece's bytes; s pre-multiplied as in literalScanner.ts)
;;   records         from `out` (setup), 16 bytes each: a hit line's (line start, line end, line
;;                   (newlines before it in its part), (accepting state << 3) | part), then one
;;                   (_, _, _, (state << 3) | 4 | part) per other accepting state the line reaches
;;   seen            one i32 per state: the stamp of the last hit line that reached it
;;   delta, bytes    where the caller put them (setup gives delta's address)
;; A step's state below zero is -1 (a newline) or -(accepting state + 1). A line's records are
;; written by one call, so the caller never reads half a line's.
(module
  (memory (export "memory") 1)
  (global $delta (mut i32) (i32.const 0))
  (global $outAt (mut i32) (i32.const 0))
  (global $outLimit (mut i32) (i32.const 0))
  (global $full (mut i32) (i32.const 0))
  (global $seen (mut i32) (i32.const 0))
  (global $shift (mut i32) (i32.const 0))
  (global $stamp (mut i32) (i32.const 0))

  ;; delta's address, the states' shift, a table of one i32 per state (`seen`, zeroed), and the
  ;; records' area [out, outLimit), which keeps room past outLimit for four lines' records with
  ;; every accepting state once each.
  (func (export "setup") (param $delta i32) (param $shift i32) (param $seen i32) (param $out i32) (param $outLimit i32)
    (global.set $delta (local.get $delta))
    (global.set $shift (local.get $shift))
    (global.set $seen (local.get $seen))
    (global.set $stamp (i32.const 0))
    (global.set $outAt (local.get $out))
    (global.set $outLimit (local.get $outLimit))
    (global.set $full (i32.const 0)))

  ;; Where the next record goes (the caller reads those before it, then calls `drained`).
  (func (export "outAt") (result i32) (global.get $outAt))
  (func (export "drained") (param $out i32)
    (global.set $outAt (local.get $out))
    (global.set $full (i32.const 0)))

  ;; Part q reached a newline or a hit at address i (state s < 0): counts the line, or records the
;; hit line and walks the rest of it, recording each other accepting state it reaches once.
;; Returns the address the walk steps past next (the line's newline, or the part's last byte).
  (func $slow (param $q i32) (param $i i32) (param $s i32) (result i32)
    (local $p i32) (local $at i32) (local $end i32) (local $t i32) (local $d i32) (local $stamp i32)
    (local.set $p (i32.add (i32.const 256) (i32.shl (local.get $q) (i32.const 5))))
    (if (i32.eq (local.get $s) (i32.const -1))
      (then
        (i32.store offset=12 (local.get $p) (i32.add (i32.load offset=12 (local.get $p)) (i32.const 1)))
        (i32.store offset=16 (local.get $p) (i32.add (local.get $i) (i32.const 1)))
        (return (local.get $i))))
    (local.set $d (global.get $delta))
    (local.set $end (i32.load offset=4 (local.get $p)))
    (local.set $stamp (i32.add (global.get $stamp) (i32.const 1)))
    (global.set $stamp (local.get $stamp))
    ;; The line's record: start, end (filled in below), line, (state << 3) | part.
    (local.set $at (global.get $outAt))
    (local.set $t (i32.sub (i32.const -1) (local.get $s)))
    (i32.store (local.get $at) (i32.load offset=16 (local.get $p)))
    (i32.store offset=8 (local.get $at) (i32.load offset=12 (local.get $p)))
    (i32.store offset=12 (local.get $at) (i32.or (i32.shl (local.get $t) (i32.const 3)) (local.get $q)))
    (i32.store (i32.add (global.get $seen) (i32.shl (local.get $t) (i32.const 2))) (local.get $stamp))
    (global.set $outAt (i32.add (local.get $at) (i32.const 16)))
    (local.set $s (i32.shl (local.get $t) (global.get $shift)))
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (block $lineEnd
      (loop $rest
        (br_if $lineEnd (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $s (i32.load (i32.add (local.get $d)
          (i32.shl (i32.or (local.get $s) (i32.load8_u (i32.load8_u (local.get $i)))) (i32.const 2)))))
        (if (i32.lt_s (local.get $s) (i32.const 0))
          (then
            (br_if $lineEnd (i32.eq (local.get $s) (i32.const -1)))
            (local.set $t (i32.sub (i32.const -1) (local.get $s)))
            ;; Another accepting state: recorded once per line (its literals join the line's).
            (if (i32.ne (i32.load (i32.add (global.get $seen) (i32.shl (local.get $t) (i32.const 2)))) (local.get $stamp))
              (then
                (i32.store (i32.add (global.get $seen) (i32.shl (local.get $t) (i32.const 2))) (local.get $stamp))
                (i32.store offset=12 (global.get $outAt)
                  (i32.or (i32.shl (local.get $t) (i32.const 3)) (i32.or (i32.const 4) (local.get $q))))
                (global.set $outAt (i32.add (global.get $outAt) (i32.const 16)))))
            (local.set $s (i32.shl (local.get $t) (global.get $shift)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rest)))
    (i32.store offset=4 (local.get $at) (local.get $i))
    (if (i32.ge_u (global.get $outAt) (global.get $outLimit))
      (then (global.set $full (i32.const 1))))
    (if (i32.lt_u (local.get $i) (local.get $end))
      (then
        ;; Stopped on the line's newline.
        (i32.store offset=12 (local.get $p) (i32.add (i32.load offset=12 (local.get $p)) (i32.const 1)))
        (i32.store offset=16 (local.get $p) (i32.add (local.get $i) (i32.const 1)))
        (return (local.get $i))))
    ;; No newline before the part's end: the walk ends there.
    (i32.sub (local.get $end) (i32.const 1)))

  ;; The four parts in one loop, until one of them ends (returns 0) or the records' area is full
  ;; (returns 1: read them, call `drained`, call again). Each part's i and s are kept in memory.
  (func (export "walk4") (result i32)
    (local $d i32)
    (local $i0 i32) (local $i1 i32) (local $i2 i32) (local $i3 i32)
    (local $e0 i32) (local $e1 i32) (local $e2 i32) (local $e3 i32)
    (local $s0 i32) (local $s1 i32) (local $s2 i32) (local $s3 i32)
    (local.set $d (global.get $delta))
    (local.set $i0 (i32.load (i32.const 256)))
    (local.set $e0 (i32.load (i32.const 260)))
    (local.set $s0 (i32.load (i32.const 264)))
    (local.set $i1 (i32.load (i32.const 288)))
    (local.set $e1 (i32.load (i32.const 292)))
    (local.set $s1 (i32.load (i32.const 296)))
    (local.set $i2 (i32.load (i32.const 320)))
    (local.set $e2 (i32.load (i32.const 324)))
    (local.set $s2 (i32.load (i32.const 328)))
    (local.set $i3 (i32.load (i32.const 352)))
    (local.set $e3 (i32.load (i32.const 356)))
    (local.set $s3 (i32.load (i32.const 360)))
    (block $exit
      (loop $step
        (br_if $exit
          (i32.or
            (i32.or (i32.ge_u (local.get $i0) (local.get $e0)) (i32.ge_u (local.get $i1) (local.get $e1)))
            (i32.or (i32.ge_u (local.get $i2) (local.get $e2)) (i32.ge_u (local.get $i3) (local.get $e3)))))
        (local.set $s0 (i32.load (i32.add (local.get $d)
          (i32.shl (i32.or (local.get $s0) (i32.load8_u (i32.load8_u (local.get $i0)))) (i32.const 2)))))
        (local.set $s1 (i32.load (i32.add (local.get $d)
          (i32.shl (i32.or (local.get $s1) (i32.load8_u (i32.load8_u (local.get $i1)))) (i32.const 2)))))
        (local.set $s2 (i32.load (i32.add (local.get $d)
          (i32.shl (i32.or (local.get $s2) (i32.load8_u (i32.load8_u (local.get $i2)))) (i32.const 2)))))
        (local.set $s3 (i32.load (i32.add (local.get $d)
          (i32.shl (i32.or (local.get $s3) (i32.load8_u (i32.load8_u (local.get $i3)))) (i32.const 2)))))
        (if (i32.lt_s (i32.or (i32.or (local.get $s0) (local.get $s1)) (i32.or (local.get $s2) (local.get $s3))) (i32.const 0))
          (then
            (if (i32.lt_s (local.get $s0) (i32.const 0))
              (then
                (local.set $i0 (call $slow (i32.const 0) (local.get $i0) (local.get $s0)))
                (local.set $s0 (i32.const 0))))
            (if (i32.lt_s (local.get $s1) (i32.const 0))
              (then
                (local.set $i1 (call $slow (i32.const 1) (local.get $i1) (local.get $s1)))
                (local.set $s1 (i32.const 0))))
            (if (i32.lt_s (local.get $s2) (i32.const 0))
              (then
                (local.set $i2 (call $slow (i32.const 2) (local.get $i2) (local.get $s2)))
                (local.set $s2 (i32.const 0))))
            (if (i32.lt_s (local.get $s3) (i32.const 0))
              (then
                (local.set $i3 (call $slow (i32.const 3) (local.get $i3) (local.get $s3)))
                (local.set $s3 (i32.const 0))))))
        (local.set $i0 (i32.add (local.get $i0) (i32.const 1)))
        (local.set $i1 (i32.add (local.get $i1) (i32.const 1)))
        (local.set $i2 (i32.add (local.get $i2) (i32.const 1)))
        (local.set $i3 (i32.add (local.get $i3) (i32.const 1)))
        (br_if $step (i32.eqz (global.get $full)))))
    (i32.store (i32.const 256) (local.get $i0))
    (i32.store (i32.const 264) (local.get $s0))
    (i32.store (i32.const 288) (local.get $i1))
    (i32.store (i32.const 296) (local.get $s1))
    (i32.store (i32.const 320) (local.get $i2))
    (i32.store (i32.const 328) (local.get $s2))
    (i32.store (i32.const 352) (local.get $i3))
    (i32.store (i32.const 360) (local.get $s3))
    (global.get $full))

  ;; Part q alone to its end (returns 0), or until the records' area is full (returns 1).
  (func (export "walk1") (param $q i32) (result i32)
    (local $p i32) (local $d i32) (local $i i32) (local $e i32) (local $s i32)
    (local.set $p (i32.add (i32.const 256) (i32.shl (local.get $q) (i32.const 5))))
    (local.set $d (global.get $delta))
    (local.set $i (i32.load (local.get $p)))
    (local.set $e (i32.load offset=4 (local.get $p)))
    (local.set $s (i32.load offset=8 (local.get $p)))
    (block $exit
      (loop $step
        (br_if $exit (i32.ge_u (local.get $i) (local.get $e)))
        (local.set $s (i32.load (i32.add (local.get $d)
          (i32.shl (i32.or (local.get $s) (i32.load8_u (i32.load8_u (local.get $i)))) (i32.const 2)))))
        (if (i32.lt_s (local.get $s) (i32.const 0))
          (then
            (local.set $i (call $slow (local.get $q) (local.get $i) (local.get $s)))
            (local.set $s (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $step (i32.eqz (global.get $full)))))
    (i32.store (local.get $p) (local.get $i))
    (i32.store offset=8 (local.get $p) (local.get $s))
    (global.get $full))

  ;; Every accepting state reached in [a, b), a span with no newline (a long line's), walked as
  ;; four parts at once; the parts after the first start `lead` bytes early so that a literal
  ;; across a cut is found whole. Each state is recorded once: (_, _, _, (state << 3) | 4). The
  ;; caller has read the records before (there are never more than the accepting states).
  (func (export "span4") (param $a i32) (param $b i32) (param $lead i32)
    (local $q i32) (local $d i32) (local $stamp i32)
    (local $e0 i32) (local $e1 i32) (local $e2 i32)
    (local $i0 i32) (local $i1 i32) (local $i2 i32) (local $i3 i32)
    (local $s0 i32) (local $s1 i32) (local $s2 i32) (local $s3 i32)
    (local.set $stamp (i32.add (global.get $stamp) (i32.const 1)))
    (global.set $stamp (local.get $stamp))
    (local.set $d (global.get $delta))
    (local.set $q (i32.shr_u (i32.sub (local.get $b) (local.get $a)) (i32.const 2)))
    (local.set $e0 (i32.add (local.get $a) (local.get $q)))
    (local.set $e1 (i32.add (local.get $e0) (local.get $q)))
    (local.set $e2 (i32.add (local.get $e1) (local.get $q)))
    (local.set $i0 (local.get $a))
    (local.set $i1 (call $max (local.get $a) (i32.sub (local.get $e0) (local.get $lead))))
    (local.set $i2 (call $max (local.get $a) (i32.sub (local.get $e1) (local.get $lead))))
    (local.set $i3 (call $max (local.get $a) (i32.sub (local.get $e2) (local.get $lead))))
    (block $exit
      (loop $step
        (br_if $exit
          (i32.or
            (i32.or (i32.ge_u (local.get $i0) (local.get $e0)) (i32.ge_u (local.get $i1) (local.get $e1)))
            (i32.or (i32.ge_u (local.get $i2) (local.get $e2)) (i32.ge_u (local.get $i3) (local.get $b)))))
        (local.set $s0 (i32.load (i32.add (local.get $d)
          (i32.shl (i32.or (local.get $s0) (i32.load8_u (i32.load8_u (local.get $i0)))) (i32.const 2)))))
        (local.set $s1 (i32.load (i32.add (local.get $d)
          (i32.shl (i32.or (local.get $s1) (i32.load8_u (i32.load8_u (local.get $i1)))) (i32.const 2)))))
        (local.set $s2 (i32.load (i32.add (local.get $d)
          (i32.shl (i32.or (local.get $s2) (i32.load8_u (i32.load8_u (local.get $i2)))) (i32.const 2)))))
        (local.set $s3 (i32.load (i32.add (local.get $d)
          (i32.shl (i32.or (local.get $s3) (i32.load8_u (i32.load8_u (local.get $i3)))) (i32.const 2)))))
        (if (i32.lt_s (i32.or (i32.or (local.get $s0) (local.get $s1)) (i32.or (local.get $s2) (local.get $s3))) (i32.const 0))
          (then
            (if (i32.lt_s (local.get $s0) (i32.const 0)) (then (local.set $s0 (call $reached (local.get $s0) (local.get $stamp)))))
            (if (i32.lt_s (local.get $s1) (i32.const 0)) (then (local.set $s1 (call $reached (local.get $s1) (local.get $stamp)))))
            (if (i32.lt_s (local.get $s2) (i32.const 0)) (then (local.set $s2 (call $reached (local.get $s2) (local.get $stamp)))))
            (if (i32.lt_s (local.get $s3) (i32.const 0)) (then (local.set $s3 (call $reached (local.get $s3) (local.get $stamp)))))))
        (local.set $i0 (i32.add (local.get $i0) (i32.const 1)))
        (local.set $i1 (i32.add (local.get $i1) (i32.const 1)))
        (local.set $i2 (i32.add (local.get $i2) (i32.const 1)))
        (local.set $i3 (i32.add (local.get $i3) (i32.const 1)))
        (br $step)))
    (call $spanRest (local.get $i0) (local.get $e0) (local.get $s0) (local.get $stamp))
    (call $spanRest (local.get $i1) (local.get $e1) (local.get $s1) (local.get $stamp))
    (call $spanRest (local.get $i2) (local.get $e2) (local.get $s2) (local.get $stamp))
    (call $spanRest (local.get $i3) (local.get $b) (local.get $s3) (local.get $stamp)))

  ;; One part of span4 on its own, from state s.
  (func $spanRest (param $i i32) (param $e i32) (param $s i32) (param $stamp i32)
    (local $d i32)
    (local.set $d (global.get $delta))
    (block $exit
      (loop $step
        (br_if $exit (i32.ge_u (local.get $i) (local.get $e)))
        (local.set $s (i32.load (i32.add (local.get $d)
          (i32.shl (i32.or (local.get $s) (i32.load8_u (i32.load8_u (local.get $i)))) (i32.const 2)))))
        (if (i32.lt_s (local.get $s) (i32.const 0)) (then (local.set $s (call $reached (local.get $s) (local.get $stamp)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $step))))

  ;; Accepting state -(s + 1) reached in a span: recorded if new to it; the walk goes on from it.
  (func $reached (param $s i32) (param $stamp i32) (result i32)
    (local $t i32) (local $at i32)
    (local.set $t (i32.sub (i32.const -1) (local.get $s)))
    (local.set $at (i32.add (global.get $seen) (i32.shl (local.get $t) (i32.const 2))))
    (if (i32.ne (i32.load (local.get $at)) (local.get $stamp))
      (then
        (i32.store (local.get $at) (local.get $stamp))
        (i32.store offset=12 (global.get $outAt) (i32.or (i32.shl (local.get $t) (i32.const 3)) (i32.const 4)))
        (global.set $outAt (i32.add (global.get $outAt) (i32.const 16)))))
    (i32.shl (local.get $t) (global.get $shift)))

  (func $max (param $x i32) (param $y i32) (result i32)
    (select (local.get $x) (local.get $y) (i32.gt_s (local.get $x) (local.get $y))))

  ;; The first newline in [i, e), or -1: sixteen bytes a step (SIMD), then byte by byte. A piece
  ;; of long lines is searched for its newlines here (TypedArray indexOf reads about 2 GB/s).
  (func (export "newline") (param $i i32) (param $e i32) (result i32)
    (local $m i32)
    (block $tail
      (loop $wide
        (br_if $tail (i32.gt_u (i32.add (local.get $i) (i32.const 32)) (local.get $e)))
        (local.set $m
          (i32.or
            (i8x16.bitmask (i8x16.eq (v128.load (local.get $i)) (i8x16.splat (i32.const 10))))
            (i32.shl (i8x16.bitmask (i8x16.eq (v128.load offset=16 (local.get $i)) (i8x16.splat (i32.const 10)))) (i32.const 16))))
        (if (local.get $m) (then (return (i32.add (local.get $i) (i32.ctz (local.get $m))))))
        (local.set $i (i32.add (local.get $i) (i32.const 32)))
        (br $wide)))
    (block $none
      (loop $narrow
        (br_if $none (i32.ge_u (local.get $i) (local.get $e)))
        (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 10)) (then (return (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $narrow)))
    (i32.const -1))
)
