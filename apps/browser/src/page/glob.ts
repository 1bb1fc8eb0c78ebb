/** Pure: a URL glob where `**` matches anything and `*` anything but `/`. A pattern without wildcards matches as a substring. */
export function globToRegExp(glob: string): RegExp {
  if (!glob.includes("*")) return new RegExp(glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === "*") {
      if (glob[i + 1] === "*") {
        re += ".*";
        i++;
      } else re += "[^/]*";
    } else re += ch.replace(/[.+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}
