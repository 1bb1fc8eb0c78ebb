// Generated from ../entries/lazy-scroll-top.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/lazy-scroll-top.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("lazy-scroll-top", "(...a)=>{var __bfEntry=(()=>{var n=Object.defineProperty;var c=Object.getOwnPropertyDescriptor;var d=Object.getOwnPropertyNames;var e=Object.prototype.hasOwnProperty;var p=(l,o)=>{for(var i in o)n(l,i,{get:o[i],enumerable:!0})},f=(l,o,i,a)=>{if(o&&typeof o==\"object\"||typeof o==\"function\")for(let t of d(o))!e.call(l,t)&&t!==i&&n(l,t,{get:()=>o[t],enumerable:!(a=c(o,t))||a.enumerable});return l};var s=l=>f(n({},\"__esModule\",{value:!0}),l);var u={};p(u,{default:()=>r});function r(){window.scrollTo({top:0,behavior:\"instant\"})}return s(u);})();return __bfEntry.default(...a)}");
