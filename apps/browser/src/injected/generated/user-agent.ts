// Generated from ../entries/user-agent.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/user-agent.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("user-agent", "(...a)=>{var __bfEntry=(()=>{var u=Object.defineProperty;var i=Object.getOwnPropertyDescriptor;var o=Object.getOwnPropertyNames;var s=Object.prototype.hasOwnProperty;var f=(e,t)=>{for(var r in t)u(e,r,{get:t[r],enumerable:!0})},A=(e,t,r,g)=>{if(t&&typeof t==\"object\"||typeof t==\"function\")for(let n of o(t))!s.call(e,n)&&n!==r&&u(e,n,{get:()=>t[n],enumerable:!(g=i(t,n))||g.enumerable});return e};var c=e=>A(u({},\"__esModule\",{value:!0}),e);var d={};f(d,{default:()=>a});function a(){return navigator.userAgent}return c(d);})();return __bfEntry.default(...a)}");
