import sys,re,collections
f=sys.argv[1]; dis=sys.argv[2]
counts=collections.Counter(); cur=0; skip=False; fn=None
for line in open(f):
    line=line.rstrip('\n')
    if line.startswith('fn='): fn=line; continue
    if line.startswith('calls='): skip=True; continue
    m=re.match(r"^(0x[0-9a-f]+|\+\d+|-\d+|\*)\s+\S+\s+(\d+)",line)
    if not m: continue
    p=m.group(1)
    if p.startswith('0x'): cur=int(p,16)
    elif p[0]=='+': cur+=int(p[1:])
    elif p[0]=='-': cur-=int(p[1:])
    if skip: skip=False; continue
    counts[cur]+=int(m.group(2))
# print disassembly with counts
out=[]
for l in open(dis):
    m=re.match(r'\s*([0-9a-f]+):\s*(.*)',l)
    if m:
        a=int(m.group(1),16); out.append((a,counts.get(a,0),m.group(2)))
    else: out.append((None,None,l.rstrip()))
scale=float(sys.argv[3]) if len(sys.argv)>3 else 1
for a,c,t in out:
    if a is None: print(t)
    elif c: print(f"{c/scale:10.2f} {a:x}: {t}")
tot=sum(c for a,c,t in out if a)
print("total",tot, tot/scale)
