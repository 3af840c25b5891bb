# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed  (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: decisions fuzzer, seed 2700390
# classb: no
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x float array 64 -0x1.edf8d64dda34ap+1 -0x1.43c216aae9f20p-1 -0x1.66decba9c6330p+1 -0x1.b1599f49a83b0p+0 -0x1.631730672eb60p+1 -0x1.ad81f51a9f02ep+1 -0x1.cb43ceceb82c8p+0 0x1.6ac12e1731c0cp+0 0x1.acc4fdcf3a964p+1 -0x1.b261d96200708p-1 0x1.305205c3cc7dcp+1 0x1.5200fa2ce37e0p+1 -0x1.a090ffe0e5eecp+1 -0x1.db0a5437d12a0p+1 0x1.9fc2c106c28d0p+0 0x1.fcd814c035fd0p-1 0x1.2e6a06a598a00p-4 -0x1.45c3ab1f42b32p+1 -0x1.2a304a038bbeep+1 0x1.4fc0183368a68p+0 0x1.0dbd5d9a511eap+1 0x1.707f9afd6a9b8p+1 -0x1.a104aa567b198p+1 -0x1.8130ae332ebe8p+1 -0x1.7a4451ad88ae0p-3 -0x1.419b5fa1bd5ecp+0 0x1.bb8fb0b53cac0p-4 0x1.6bcc7e6cd4274p+0 0x1.c1adfce34a7f8p+1 -0x1.3fff021276e6ep+1 0x1.626a9adbe40f0p+1 0x1.dd8c3a8424f10p-2 -0x1.88e108dfc5d20p+0 -0x1.8b21feb5896b0p-2 -0x1.588b5ec131f24p+1 -0x1.9bb5312c93b7ep+1 -0x1.a95778c67b050p+0 0x1.008ecf76300f0p+0 0x1.057845da64948p+0 -0x1.98ccdd41c5b60p-2 0x1.d1265e8c62158p-1 0x1.d34beb4e05edep+1 0x1.86777429af02cp+1 -0x1.4e06ddaa50af6p+1 0x1.ae7ee553ebaa6p+1 -0x1.e22b718b98ad6p+1 -0x1.e8e596249af3cp+0 -0x1.c12a206218f1cp+1 0x1.7593f3dfb8b28p+0 -0x1.14aa183280ee0p+1 -0x1.3a7a528c45730p-2 -0x1.2b6bc9b0fba80p-3 -0x1.38f88996cfeccp+1 0x1.5a973ebcd778cp+0 0x1.b03b4a9385b16p+1 -0x1.ad34e2ca14710p-1 0x0.0p+0 -0x0.0p+0 0x1.0000000000000p+0 0x1.b000000000000p+4 0x1.0000000000000p-1 nan 0x1.56e1fc2f8f359p-997 -0x1.4000000000000p+1
# arg: k int array 64 1 5 25 28 20 12 14 27 7 1 27 29 18 -3 20 6 11 14 25 20 22 16 7 22 18 3 27 29 18 6 26 28 8 23 13 3 7 22 -3 3 15 27 10 6 8 15 18 26 15 5 8 11 12 29 21 2 -3 22 15 12 -1 7 17 16
# | numba backend: ((0,), 983, 961, None)
# |   expected: [983, 983, 983, 983, 983, 983, 983, 983, 983, 983, 983, 983 ... (64 lanes)]
# |   got:      int64[64] [961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961, 961]
import math


def f(x: float, k: int):
    c = 0
    if (math.log(abs(math.cos(float(k))) + 1.0, 2.0) * abs((float(k) - k)) ** 0.5) == round((math.log(abs(math.cos(float(k))) + 1.0, 2.0) * abs((float(k) - k)) ** 0.5)):
        x = 27.0
        x = x if abs(x) < 1e6 else 0.5
        x = math.atan(math.sin(math.cbrt(x)))
        x = x if abs(x) < 1e6 else 0.5
    else:
        fuel = 0
        while math.exp(math.log(abs(k) + 1.0)) * math.exp(math.log(abs(k) + 1.0)) * math.exp(math.log(abs(k) + 1.0)) == math.log1p(abs(1.0 / ((x + 0.5) ** 0.5))) and fuel < 29:
            fuel += 1
            x = math.cos((math.sqrt(abs(1.0))) ** 2)
            x = x if abs(x) < 1e6 else 0.5
            c += int(x % 0.25 * 16.0)
        x = math.exp(math.log(abs(math.tanh(math.acos(x + 0.5))) + 1.0))
        x = x if abs(x) < 1e6 else 0.5
        fuel = 0
        while math.isclose(math.log1p(abs((math.log(abs(x + 0.5) + 1.0, 2.0)) ** 3)), (math.log1p(abs(x + 0.5)) + math.cos(x + 0.5))) and fuel < 48:
            fuel += 1
            x = math.erf(math.atan2(k, -1.0))
            x = x if abs(x) < 1e6 else 0.5
            c += int(x * 100.0)
    x = abs(math.sin(x)) * 0.9 + 0.05
    for _ in range(1798):
        x = abs(math.sin(3.1 * x))
        if x > 0.5:
            c += 1
    fuel = 0
    while x > 0.05 and fuel < 127:
        x = (x * 1.7 + math.exp(-x)) % 1.0
        fuel += 1
    c += fuel
    return c
