// Generated from ../entries/remove-overlay-guard.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/remove-overlay-guard.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("remove-overlay-guard", "(...a)=>{var __bfEntry=(()=>{var r=Object.defineProperty;var u=Object.getOwnPropertyDescriptor;var f=Object.getOwnPropertyNames;var m=Object.prototype.hasOwnProperty;var c=(t,e)=>{for(var o in e)r(t,o,{get:e[o],enumerable:!0})},d=(t,e,o,a)=>{if(e&&typeof e==\"object\"||typeof e==\"function\")for(let n of f(e))!m.call(t,n)&&n!==o&&r(t,n,{get:()=>e[n],enumerable:!(a=u(e,n))||a.enumerable});return t};var E=t=>d(r({},\"__esModule\",{value:!0}),t);var R={};c(R,{default:()=>A});var s=\"browserfleet.overlays.guard\",l=\"browserfleet.overlays.target\";var p=()=>window,v=Symbol.for(s),S=Symbol.for(l);function i(){let t=p()[v];typeof t==\"function\"&&t()}var A=i;return E(R);})();return __bfEntry.default(...a)}");
