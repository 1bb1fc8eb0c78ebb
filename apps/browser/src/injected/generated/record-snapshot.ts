// Generated from ../entries/record-snapshot.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/record-snapshot.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("record-snapshot", "(...a)=>{var __bfEntry=(()=>{var d=Object.defineProperty;var a=Object.getOwnPropertyDescriptor;var c=Object.getOwnPropertyNames;var p=Object.prototype.hasOwnProperty;var s=(n,t)=>{for(var o in t)d(n,o,{get:t[o],enumerable:!0})},v=(n,t,o,i)=>{if(t&&typeof t==\"object\"||typeof t==\"function\")for(let e of c(t))!p.call(n,e)&&e!==o&&d(n,e,{get:()=>t[e],enumerable:!(i=a(t,e))||i.enumerable});return n};var w=n=>v(d({},\"__esModule\",{value:!0}),n);var f={};s(f,{default:()=>r});function r(n){window.dispatchEvent(new Event(n))}return w(f);})();return __bfEntry.default(...a)}");
