;; The int8 search scan, for src/store/int8-rows.ts (which embeds this module assembled:
;; test/unit/compact-search.test.ts assembles it again with wabt and compares the bytes).
;; Byte offsets into the imported memory; rows are int8 in [-127, 127], `rowBytes` apart (a
;; multiple of 16); scales and scores float32. The query is int16, `2 × rowBytes` bytes: per 16
;; columns, first their 8 even then their 8 odd values.
(module
  (import "env" "memory" (memory 1))

  ;; out[r] = f32(256 · Σ_j rows[r][j] · q[j]) × scales[r] × qScale for r < m, m = n rounded up
  ;; to 4 (the caller leaves room: up to 3 rows past n are read and scored, their scores junk),
  ;; and hist[bin(out[r])] += 1 for the same rows, bin(s) = clamp(trunc((s + 1) × 2048), 0, 4095).
  ;;
  ;; Speed (docs/benchmarks.md): a row's int16 lanes shifted left by 8 are its even bytes × 256,
  ;; masked to their high bytes its odd bytes × 256, so no sign extension (shuffles, the scarce
  ;; port) is needed; a turn takes one row from each quarter of [0, m): four streams through
  ;; memory keep more cache lines in flight than one, and the scan of 1M rows is memory-bound.
  ;; Overflow: each i32 lane sums rowBytes/4 products of at most 256 × 127 × |q|, so the caller
  ;; keeps |q| ≤ (2^31 − 1) / (rowBytes/4 × 256 × 127) (2064 at 128-d); the four lanes are added
  ;; in float32.
  (func (export "score") (param $rows i32) (param $q i32) (param $scales i32) (param $out i32) (param $n i32) (param $rowBytes i32) (param $qScale f32) (param $hist i32)
    (local $outEnd i32) (local $p i32) (local $qp i32) (local $rowEnd i32) (local $rb2 i32) (local $rb3 i32) (local $bins i32) (local $quarter i32) (local $h4 i32) (local $rb1 i32) (local $h8 i32) (local $h12 i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $lo v128) (local $hi v128) (local $x v128) (local $s v128) (local $mask v128)
    (if (i32.eqz (local.get $n)) (then (return)))
    (local.set $quarter (i32.shr_u (i32.and (i32.add (local.get $n) (i32.const 3)) (i32.const -4)) (i32.const 2)))
    (local.set $outEnd (i32.add (local.get $out) (i32.shl (local.get $quarter) (i32.const 2))))
    (local.set $mask (v128.const i16x8 0xff00 0xff00 0xff00 0xff00 0xff00 0xff00 0xff00 0xff00))
    (local.set $rb1 (i32.mul (local.get $quarter) (local.get $rowBytes)))
    (local.set $rb2 (i32.shl (local.get $rb1) (i32.const 1)))
    (local.set $rb3 (i32.add (local.get $rb2) (local.get $rb1)))
    (local.set $h4 (i32.shl (local.get $quarter) (i32.const 2)))
    (local.set $h8 (i32.shl (local.get $h4) (i32.const 1)))
    (local.set $h12 (i32.add (local.get $h8) (local.get $h4)))
    (loop $group
      (local.set $a0 (v128.const i32x4 0 0 0 0))
      (local.set $a1 (v128.const i32x4 0 0 0 0))
      (local.set $a2 (v128.const i32x4 0 0 0 0))
      (local.set $a3 (v128.const i32x4 0 0 0 0))
      (local.set $p (local.get $rows))
      (local.set $qp (local.get $q))
      (local.set $rowEnd (i32.add (local.get $rows) (local.get $rowBytes)))
      (loop $col
        ;; 16 int8 of each of the four rows against the query's even and odd int16 of those columns
        (local.set $lo (v128.load (local.get $qp)))
        (local.set $hi (v128.load offset=16 (local.get $qp)))
        (local.set $x (v128.load (local.get $p)))
        (local.set $a0 (i32x4.add (local.get $a0) (i32x4.dot_i16x8_s (i16x8.shl (local.get $x) (i32.const 8)) (local.get $lo))))
        (local.set $a0 (i32x4.add (local.get $a0) (i32x4.dot_i16x8_s (v128.and (local.get $x) (local.get $mask)) (local.get $hi))))
        (local.set $x (v128.load (i32.add (local.get $p) (local.get $rb1))))
        (local.set $a1 (i32x4.add (local.get $a1) (i32x4.dot_i16x8_s (i16x8.shl (local.get $x) (i32.const 8)) (local.get $lo))))
        (local.set $a1 (i32x4.add (local.get $a1) (i32x4.dot_i16x8_s (v128.and (local.get $x) (local.get $mask)) (local.get $hi))))
        (local.set $x (v128.load (i32.add (local.get $p) (local.get $rb2))))
        (local.set $a2 (i32x4.add (local.get $a2) (i32x4.dot_i16x8_s (i16x8.shl (local.get $x) (i32.const 8)) (local.get $lo))))
        (local.set $a2 (i32x4.add (local.get $a2) (i32x4.dot_i16x8_s (v128.and (local.get $x) (local.get $mask)) (local.get $hi))))
        (local.set $x (v128.load (i32.add (local.get $p) (local.get $rb3))))
        (local.set $a3 (i32x4.add (local.get $a3) (i32x4.dot_i16x8_s (i16x8.shl (local.get $x) (i32.const 8)) (local.get $lo))))
        (local.set $a3 (i32x4.add (local.get $a3) (i32x4.dot_i16x8_s (v128.and (local.get $x) (local.get $mask)) (local.get $hi))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (local.set $qp (i32.add (local.get $qp) (i32.const 32)))
        (br_if $col (i32.lt_u (local.get $p) (local.get $rowEnd))))
      ;; [Σa0, Σa1, Σa2, Σa3] by two rounds of pairwise lane sums, in float32: the four lanes'
      ;; int32 sum could overflow
      (local.set $a0 (f32x4.convert_i32x4_s (local.get $a0)))
      (local.set $a1 (f32x4.convert_i32x4_s (local.get $a1)))
      (local.set $a2 (f32x4.convert_i32x4_s (local.get $a2)))
      (local.set $a3 (f32x4.convert_i32x4_s (local.get $a3)))
      (local.set $a0 (f32x4.add
        (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a0) (local.get $a1))
        (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a0) (local.get $a1))))
      (local.set $a2 (f32x4.add
        (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a2) (local.get $a3))
        (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a2) (local.get $a3))))
      (local.set $s (f32x4.add
        (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a0) (local.get $a2))
        (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a0) (local.get $a2))))
      (local.set $s (f32x4.mul
        (f32x4.mul (local.get $s)
          (v128.load32_lane 3 (i32.add (local.get $scales) (local.get $h12))
          (v128.load32_lane 2 (i32.add (local.get $scales) (local.get $h8))
          (v128.load32_lane 1 (i32.add (local.get $scales) (local.get $h4)) (v128.load32_zero (local.get $scales))))))
        (f32x4.splat (local.get $qScale))))
      (v128.store32_lane 0 (local.get $out) (local.get $s))
      (v128.store32_lane 1 (i32.add (local.get $out) (local.get $h4)) (local.get $s))
      (v128.store32_lane 2 (i32.add (local.get $out) (local.get $h8)) (local.get $s))
      (v128.store32_lane 3 (i32.add (local.get $out) (local.get $h12)) (local.get $s))
      ;; the histogram: four bin offsets, then four scalar increments
      (local.set $x (i32x4.shl
        (i32x4.min_s
          (i32x4.max_s
            (i32x4.trunc_sat_f32x4_s (f32x4.mul (f32x4.add (local.get $s) (f32x4.splat (f32.const 1))) (f32x4.splat (f32.const 2048))))
            (v128.const i32x4 0 0 0 0))
          (v128.const i32x4 4095 4095 4095 4095))
        (i32.const 2)))
      (local.set $bins (i32.add (local.get $hist) (i32x4.extract_lane 0 (local.get $x))))
      (i32.store (local.get $bins) (i32.add (i32.load (local.get $bins)) (i32.const 1)))
      (local.set $bins (i32.add (local.get $hist) (i32x4.extract_lane 1 (local.get $x))))
      (i32.store (local.get $bins) (i32.add (i32.load (local.get $bins)) (i32.const 1)))
      (local.set $bins (i32.add (local.get $hist) (i32x4.extract_lane 2 (local.get $x))))
      (i32.store (local.get $bins) (i32.add (i32.load (local.get $bins)) (i32.const 1)))
      (local.set $bins (i32.add (local.get $hist) (i32x4.extract_lane 3 (local.get $x))))
      (i32.store (local.get $bins) (i32.add (i32.load (local.get $bins)) (i32.const 1)))
      (local.set $rows (i32.add (local.get $rows) (local.get $rowBytes)))
      (local.set $scales (i32.add (local.get $scales) (i32.const 4)))
      (local.set $out (i32.add (local.get $out) (i32.const 4)))
      (br_if $group (i32.lt_u (local.get $out) (local.get $outEnd)))))

  ;; Writes to `at` the indices r < n (ascending, as i32) with scores[r] ≥ min, at most `cap` of
  ;; them; returns how many there are, or cap + 1 if more. Four scores a turn: most turns are one
  ;; compare and a branch not taken.
  (func (export "collect") (param $scores i32) (param $n i32) (param $min f32) (param $at i32) (param $cap i32) (result i32)
    (local $r i32) (local $end i32) (local $found i32) (local $m v128) (local $lane i32)
    (local.set $m (f32x4.splat (local.get $min)))
    (local.set $end (i32.and (i32.add (local.get $n) (i32.const 3)) (i32.const -4)))
    (block $done
      (loop $turn
        (br_if $done (i32.ge_u (local.get $r) (local.get $end)))
        (if (v128.any_true (f32x4.ge (v128.load (i32.add (local.get $scores) (i32.shl (local.get $r) (i32.const 2)))) (local.get $m)))
          (then
            (local.set $lane (local.get $r))
            (loop $each
              (if (i32.and
                    (i32.lt_u (local.get $lane) (local.get $n))
                    (f32.ge (f32.load (i32.add (local.get $scores) (i32.shl (local.get $lane) (i32.const 2)))) (local.get $min)))
                (then
                  (if (i32.ge_u (local.get $found) (local.get $cap)) (then (return (i32.add (local.get $cap) (i32.const 1)))))
                  (i32.store (i32.add (local.get $at) (i32.shl (local.get $found) (i32.const 2))) (local.get $lane))
                  (local.set $found (i32.add (local.get $found) (i32.const 1)))))
              (local.set $lane (i32.add (local.get $lane) (i32.const 1)))
              (br_if $each (i32.and (local.get $lane) (i32.const 3))))))
        (local.set $r (i32.add (local.get $r) (i32.const 4)))
        (br $turn)))
    (local.get $found)))
