"""Counts the llvm.masked.gather/scatter calls of an LLVM IR file whose
pointer operand is defined in another block than the call (where the x86
back end can no longer take a scalar base and 32-bit indices); with a second
argument, prints each one's block and its address's block.

    python3 gathers_far_from_address.py FILE.ll [v]
"""
import sys,re
blk=None; defs={}; far=0; tot=0
lines=open(sys.argv[1]).read().split('\n')
for l in lines:
    m=re.match(r'^([\w.\-]+):',l)
    if m: blk=m.group(1); continue
    if l.startswith('define'): blk='entry'; defs={}
    m=re.match(r'\s+(%[\w.\-]+) = ',l)
    if m: defs[m.group(1)]=blk
    m=re.search(r'@llvm\.masked\.(gather|scatter)\.[\w.]+\((?:<8 x float> [%\w.\-]+, )?<8 x ptr> (%[\w.\-]+)',l)
    if m:
        tot+=1
        if defs.get(m.group(2))!=blk:
            far+=1
            if len(sys.argv)>2: print(blk, defs.get(m.group(2)))
print(far,tot)
