;; Per-block float32 Mul / Add in place, for src/models/block-kernel.ts (which embeds this module
;; assembled: test/unit/block-kernel.test.ts assembles it again with wabt and compares the bytes).
(module
  (memory (export "memory") 1)
  ;; out[j*block + k] = a[j*block + k] (op) b[j], op 0 = multiply, 1 = add; float32, byte offsets
  (func (export "blocks") (param $a i32) (param $b i32) (param $out i32) (param $blocks i32) (param $block i32) (param $op i32)
    (local $j i32) (local $k i32) (local $y f32) (local $yv v128) (local $end4 i32) (local $bytes i32)
    (local.set $bytes (i32.shl (local.get $block) (i32.const 2)))
    (local.set $end4 (i32.shl (i32.and (local.get $block) (i32.const -4)) (i32.const 2)))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $j) (local.get $blocks)))
        (local.set $y (f32.load (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2)))))
        (local.set $yv (f32x4.splat (local.get $y)))
        (local.set $k (i32.const 0))
        (if (local.get $op)
          (then
            (block $v4a (loop $l4a
              (br_if $v4a (i32.ge_u (local.get $k) (local.get $end4)))
              (v128.store (i32.add (local.get $out) (local.get $k)) (f32x4.add (v128.load (i32.add (local.get $a) (local.get $k))) (local.get $yv)))
              (local.set $k (i32.add (local.get $k) (i32.const 16)))
              (br $l4a)))
            (block $v1a (loop $l1a
              (br_if $v1a (i32.ge_u (local.get $k) (local.get $bytes)))
              (f32.store (i32.add (local.get $out) (local.get $k)) (f32.add (f32.load (i32.add (local.get $a) (local.get $k))) (local.get $y)))
              (local.set $k (i32.add (local.get $k) (i32.const 4)))
              (br $l1a))))
          (else
            (block $v4m (loop $l4m
              (br_if $v4m (i32.ge_u (local.get $k) (local.get $end4)))
              (v128.store (i32.add (local.get $out) (local.get $k)) (f32x4.mul (v128.load (i32.add (local.get $a) (local.get $k))) (local.get $yv)))
              (local.set $k (i32.add (local.get $k) (i32.const 16)))
              (br $l4m)))
            (block $v1m (loop $l1m
              (br_if $v1m (i32.ge_u (local.get $k) (local.get $bytes)))
              (f32.store (i32.add (local.get $out) (local.get $k)) (f32.mul (f32.load (i32.add (local.get $a) (local.get $k))) (local.get $y)))
              (local.set $k (i32.add (local.get $k) (i32.const 4)))
              (br $l1m)))))
        (local.set $a (i32.add (local.get $a) (local.get $bytes)))
        (local.set $out (i32.add (local.get $out) (local.get $bytes)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $rows))))
)
