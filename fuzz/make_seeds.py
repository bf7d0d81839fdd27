#!/usr/bin/env python3
"""Writes the hand-made binary seeds of fuzz/corpus/{onnx,driver_ioctl,registers} (the text targets'
seeds are copies of shipped files; compilation_cache's, capability_cache's and hal's come from their
targets with
NPUSIM_FUZZ_WRITE_SEEDS). ONNX files are encoded here by hand (protobuf wire format): Debian has no
Python onnx package. Run from the repository root: python3 fuzz/make_seeds.py"""
import os
import struct

ROOT = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    d = os.path.join(ROOT, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# --- protobuf wire format --------------------------------------------------------------------------


def varint(n):
    n &= (1 << 64) - 1
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def f_varint(field, n):
    return varint(field << 3) + varint(n)


def f_bytes(field, data):
    if isinstance(data, str):
        data = data.encode()
    return varint((field << 3) | 2) + varint(len(data)) + data


def f_float(field, x):
    return varint((field << 3) | 5) + struct.pack("<f", x)


# ONNX messages (onnx.proto field numbers).
def tensor(name, dims, floats=None, int64s=None):
    t = b"".join(f_varint(1, d) for d in dims)
    if floats is not None:
        t += f_varint(2, 1) + f_bytes(4, b"".join(struct.pack("<f", x) for x in floats))
    else:
        t += f_varint(2, 7) + f_bytes(7, b"".join(varint(x) for x in int64s))
    return t + f_bytes(8, name)


def attr_ints(name, values):
    return f_bytes(1, name) + f_varint(20, 7) + b"".join(f_varint(8, v) for v in values)


def attr_int(name, v):
    return f_bytes(1, name) + f_varint(20, 2) + f_varint(3, v)


def attr_float(name, v):
    return f_bytes(1, name) + f_varint(20, 1) + f_float(2, v)


def node(op, inputs, outputs, attrs=()):
    n = b"".join(f_bytes(1, i) for i in inputs) + b"".join(f_bytes(2, o) for o in outputs)
    n += f_bytes(3, op + "_" + outputs[0]) + f_bytes(4, op)
    return n + b"".join(f_bytes(5, a) for a in attrs)


def value_info(name, dims, elem=1):
    shape = b"".join(f_bytes(1, f_varint(1, d)) for d in dims)
    tt = f_varint(1, elem) + f_bytes(2, shape)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, tt))


def model(nodes, inputs, outputs, inits=(), opset=13):
    g = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, "g")
    g += b"".join(f_bytes(5, t) for t in inits)
    g += b"".join(f_bytes(11, v) for v in inputs) + b"".join(f_bytes(12, v) for v in outputs)
    return f_varint(1, 7) + f_bytes(8, f_bytes(1, "") + f_varint(2, opset)) + f_bytes(7, g)


def onnx_seeds():
    w = [((i * 37) % 17 - 8) / 16.0 for i in range(4 * 3 * 3 * 3)]
    put("onnx", "conv_relu_pool_reshape.onnx", model(
        [node("Conv", ["x", "w", "b"], ["c"], [attr_ints("pads", [1, 1, 1, 1]), attr_ints("strides", [1, 1])]),
         node("Relu", ["c"], ["r"]),
         node("MaxPool", ["r"], ["p"], [attr_ints("kernel_shape", [2, 2]), attr_ints("strides", [2, 2])]),
         node("Reshape", ["p", "shape"], ["y"])],
        [value_info("x", [1, 3, 8, 8])], [value_info("y", [1, 64])],
        [tensor("w", [4, 3, 3, 3], floats=w), tensor("b", [4], floats=[0.1, -0.1, 0.2, 0.0]),
         tensor("shape", [2], int64s=[1, -1])]))
    put("onnx", "gemm_softmax.onnx", model(
        [node("Gemm", ["x", "w", "b"], ["g"], [attr_int("transB", 1)]),
         node("Softmax", ["g"], ["y"], [attr_int("axis", 1)])],
        [value_info("x", [2, 6])], [value_info("y", [2, 4])],
        [tensor("w", [4, 6], floats=[(i % 7) / 7.0 for i in range(24)]), tensor("b", [4], floats=[0, 1, 2, 3])]))
    put("onnx", "squeeze_unsqueeze_add.onnx", model(
        [node("Unsqueeze", ["x", "axes"], ["u"]), node("Squeeze", ["u", "axes"], ["s"]),
         node("Add", ["s", "c"], ["a"]), node("Clip", ["a", "lo", "hi"], ["y"])],
        [value_info("x", [2, 3])], [value_info("y", [2, 3])],
        [tensor("axes", [1], int64s=[0]), tensor("c", [3], floats=[1, 2, 3]), tensor("lo", [], floats=[0.0]),
         tensor("hi", [], floats=[6.0])]))
    put("onnx", "shape_constantofshape_concat.onnx", model(
        [node("Shape", ["x"], ["s"]), node("ConstantOfShape", ["s"], ["z"]), node("Concat", ["x", "z"], ["c"],
                                                                                 [attr_int("axis", 1)]),
         node("Transpose", ["c"], ["t"], [attr_ints("perm", [1, 0])]), node("Flatten", ["t"], ["y"])],
        [value_info("x", [2, 3])], [value_info("y", [6, 2])]))
    put("onnx", "batchnorm_avgpool_lrelu.onnx", model(
        [node("BatchNormalization", ["x", "g", "b", "m", "v"], ["n"]),
         node("AveragePool", ["n"], ["p"], [attr_ints("kernel_shape", [2, 2])]),
         node("LeakyRelu", ["p"], ["y"], [attr_float("alpha", 0.1)])],
        [value_info("x", [1, 2, 4, 4])], [value_info("y", [1, 2, 3, 3])],
        [tensor("g", [2], floats=[1, 2]), tensor("b", [2], floats=[0, 1]), tensor("m", [2], floats=[0, 0.5]),
         tensor("v", [2], floats=[1, 4])]))


# --- driver ioctl programs (fuzz/driver_ioctl_fuzz.cpp) ----------------------------------------------


def dma(opcode, sram, row_bytes, rows=1, dev=0, dev_stride=0, sram_stride=0):
    d = struct.pack("<IIQIIIII", opcode, 0, dev, sram, row_bytes, rows, dev_stride, sram_stride)
    return d + bytes(128 - len(d))


def driver_seeds():
    p = bytes([0])                                                     # uid offset
    p += bytes([0]) + struct.pack("<IB", 8192, 0)                      # alloc 8 KiB
    p += bytes([2, 0]) + struct.pack("<QB", 0, 64) + bytes(range(64))  # write 64 bytes at 0
    p += bytes([4, 1, 1, 3])                                           # submit: 1 stage, 1 buffer, 3 descriptors
    p += dma(1, 0, 64) + bytes([1]) + struct.pack("<H", 0)             # DMA_IN from bo[0] + 0
    p += dma(2, 0, 64) + bytes([1]) + struct.pack("<H", 1024)          # DMA_OUT to bo[0] + 1024
    p += struct.pack("<II", 5, 0) + struct.pack("<I", 1) + bytes(116) + bytes([0])  # FENCE
    p += struct.pack("<HB", 500, 0)                                    # priority 500, computing
    p += bytes([6]) + struct.pack("<H", 200)                           # let it run
    p += bytes([3, 0]) + struct.pack("<QH", 1024, 64)                  # read back
    p += bytes([1, 0])                                                 # free
    put("driver_ioctl", "dma_round_trip", p)
    q = bytes([7])
    q += bytes([1, 0x80]) + struct.pack("<I", 12345)                   # free a handle never made
    q += bytes([0]) + struct.pack("<IB", 4096, 1)                      # weights BO
    q += bytes([2, 0]) + struct.pack("<QB", (1 << 63), 8) + bytes(8)   # write far past the end
    q += bytes([3, 0x80]) + struct.pack("<IQH", 77, 0, 4096)           # read through a bad handle
    q += bytes([4, 1, 1, 1]) + dma(1, 0, 4096, dev=0x10) + bytes([0])  # DMA outside every BO: refused
    q += struct.pack("<HB", 1001, 1)                                   # and a priority past 1000
    q += bytes([4, 2, 1, 1]) + dma(1, 0, 1 << 20, rows=64, dev_stride=4096) + bytes([1]) + struct.pack("<H", 0)
    q += bytes([1, 1]) + dma(99, 0, 0) + bytes([0])                    # unknown opcode
    q += struct.pack("<HB", 0, 0)
    q += bytes([5, 0]) + struct.pack("<I", 424242)                     # cancel a made-up job
    put("driver_ioctl", "hostile_calls", q)
    r = bytes([3]) + bytes([0]) + struct.pack("<IB", 16 << 20, 0)     # a 16 MiB BO
    r += bytes([4, 1, 1, 1]) + dma(1, 0, 16 << 20, dev=0) + bytes([1]) + struct.pack("<H", 0)
    r += struct.pack("<HB", 0, 0)                                      # a legitimately huge DMA (bounded job)
    put("driver_ioctl", "huge_dma", r)


# --- register programs (fuzz/registers_fuzz.cpp) ----------------------------------------------------

SCRATCH = 1 << 20


def registers_seeds():
    p = bytes([4]) + struct.pack("<H", 0) + dma(1, 0, 64, dev=SCRATCH + 8192)
    p += bytes([4]) + struct.pack("<H", 1) + dma(2, 0, 64, dev=SCRATCH + 12288)
    p += bytes([4]) + struct.pack("<H", 2) + struct.pack("<III", 5, 0, 1) + bytes(116)
    p += bytes([3, 0]) + struct.pack("<HB", 0, 3)                     # channel 0: slot 0, 3 descriptors
    p += bytes([1, 0, 0x28 // 4]) + struct.pack("<I", 0)              # CH_CMD_START = 0
    p += bytes([0]) + struct.pack("<HI", 0x014, 0xF)                   # IRQ_MASK
    p += bytes([1, 0, 0x0C // 4]) + struct.pack("<I", 1)               # doorbell: start
    p += bytes([5]) + struct.pack("<H", 2000)                          # 40 us
    p += bytes([2]) + struct.pack("<H", 0x010)                         # IRQ_STATUS
    p += bytes([1, 0, 0x24 // 4]) + struct.pack("<I", 0xFFFFFFFF)      # acknowledge
    put("registers", "dma_fence_on_channel0", p)
    q = bytes([0]) + struct.pack("<HI", 0x018, 1)                      # soft reset
    q += bytes([1, 1, 0x44 // 4]) + struct.pack("<I", 0xFFFFFFFF)      # fault inject, every bit
    q += bytes([1, 1, 0x0C // 4]) + struct.pack("<I", 0xFFFFFFFF)      # every doorbell bit
    q += bytes([1, 1, 0x18 // 4]) + struct.pack("<I", 3)               # preempt + reset
    q += bytes([0]) + struct.pack("<HI", 0x0013, 7)                    # unaligned
    q += bytes([1, 2, 0x00 // 4]) + struct.pack("<I", 0xFFFFFFF0)      # command base past DRAM
    q += bytes([1, 2, 0x08 // 4]) + struct.pack("<I", 0xFFFFFFFF)
    q += bytes([1, 2, 0x0C // 4]) + struct.pack("<I", 1)
    q += bytes([5]) + struct.pack("<H", 500)
    q += bytes([2]) + struct.pack("<H", 0x1000 + 0x100 * 2 + 0x40)  # CH_ERROR_INDEX
    put("registers", "hostile_writes", q)


if __name__ == "__main__":
    onnx_seeds()
    driver_seeds()
    registers_seeds()
