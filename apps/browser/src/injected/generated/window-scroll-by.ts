// Generated from ../entries/window-scroll-by.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/window-scroll-by.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("window-scroll-by", "(...a)=>{var __bfEntry=(()=>{var e=Object.defineProperty;var r=Object.getOwnPropertyDescriptor;var u=Object.getOwnPropertyNames;var w=Object.prototype.hasOwnProperty;var y=(o,n)=>{for(var t in n)e(o,t,{get:n[t],enumerable:!0})},a=(o,n,t,i)=>{if(n&&typeof n==\"object\"||typeof n==\"function\")for(let d of u(n))!w.call(o,d)&&d!==t&&e(o,d,{get:()=>n[d],enumerable:!(i=r(n,d))||i.enumerable});return o};var b=o=>a(e({},\"__esModule\",{value:!0}),o);var c={};y(c,{default:()=>l});function l(o){window.scrollBy({left:o.dx,top:o.dy,behavior:\"instant\"})}return b(c);})();return __bfEntry.default(...a)}");
